package openai

import (
	"context"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/internal/httpapi"
)

// provider names this adapter in specs, errors and traces.
const provider = "openai"

// LLM is one chat-completions model on one server. It is safe for concurrent
// use: the SDK client holds no per-call state.
type LLM struct {
	model  string
	client openai.Client
}

var _ model.LLM = (*LLM)(nil)

// New returns the model named model (e.g. "gpt-4.1-mini", or
// "meta-llama/llama-3.3-70b-instruct" on OpenRouter) on the server cfg names.
// It fails with ErrNoModel or ErrNoAPIKey rather than at the first call.
func New(modelName string, cfg Config) (*LLM, error) {
	if err := cfg.check(modelName); err != nil {
		return nil, err
	}
	// The explicit options come after the SDK's environment defaults and
	// override them, so Config alone decides key and server.
	baseURL := cfg.BaseURL
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	opts := []option.RequestOption{
		option.WithMaxRetries(0), option.WithAPIKey(cfg.APIKey), option.WithBaseURL(baseURL),
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &LLM{model: modelName, client: openai.NewClient(opts...)}, nil
}

// Factory returns the model.Factory the binary registers as "openai", making
// every model it is asked for on the server cfg names.
func Factory(cfg Config) model.Factory {
	return func(modelName string) (model.LLM, error) { return New(modelName, cfg) }
}

// Name returns the spec the trace shows, e.g. "openai:gpt-4.1-mini".
func (l *LLM) Name() string { return provider + ":" + l.model }

// sdkOptions are the SDK's request options httpapi.Generate sets.
var sdkOptions = httpapi.Options[option.RequestOption]{
	ResponseInto: option.WithResponseInto, ResponseBodyInto: option.WithResponseBodyInto, Header: option.WithHeader,
}

// Generate sends one chat completion and returns the first choice.
func (l *LLM) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	return httpapi.Generate(ctx, provider, sdkOptions, req, l.buildParams, l.client.Chat.Completions.New, parseResponse)
}
