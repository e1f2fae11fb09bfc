package anthropic

import (
	"context"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/internal/httpapi"
)

// provider names this adapter in specs, errors and traces.
const provider = "anthropic"

// LLM is one Claude model. It is safe for concurrent use: the SDK client
// holds no per-call state.
type LLM struct {
	model     string
	maxTokens int64
	client    anthropic.Client
}

var _ model.LLM = (*LLM)(nil)

// New returns the model named modelName (e.g. "claude-sonnet-4-5") on the
// server cfg names. It fails with ErrNoModel or ErrNoAPIKey rather than at
// the first call.
func New(modelName string, cfg Config) (*LLM, error) {
	if err := cfg.check(modelName); err != nil {
		return nil, err
	}
	// The SDK refuses, at each call, a non-streaming request whose max_tokens
	// could take longer than ten minutes; say so now instead.
	if _, err := anthropic.CalculateNonStreamingTimeout(int(cfg.maxTokens()), anthropic.Model(modelName), nil); err != nil {
		return nil, fmt.Errorf("anthropic: max tokens %d for %s: %w", cfg.maxTokens(), modelName, err)
	}
	// Config alone decides key and server: the SDK's environment and profile
	// lookups are off, as are its retries.
	opts := []option.RequestOption{option.WithoutEnvironmentDefaults(), option.WithMaxRetries(0)}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &LLM{model: modelName, maxTokens: cfg.maxTokens(), client: anthropic.NewClient(opts...)}, nil
}

// Factory returns the model.Factory the binary registers as "anthropic",
// making every model it is asked for on the server cfg names.
func Factory(cfg Config) model.Factory {
	return func(modelName string) (model.LLM, error) { return New(modelName, cfg) }
}

// Name returns the spec the trace shows, e.g. "anthropic:claude-sonnet-4-5".
func (l *LLM) Name() string { return provider + ":" + l.model }

// sdkOptions are the SDK's request options httpapi.Generate sets.
var sdkOptions = httpapi.Options[option.RequestOption]{
	ResponseInto: option.WithResponseInto, ResponseBodyInto: option.WithResponseBodyInto, Header: option.WithHeader,
}

// Generate sends one Messages request and returns the answer's text, tool
// calls and usage.
func (l *LLM) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	return httpapi.Generate(ctx, provider, sdkOptions, req, l.buildParams, l.client.Messages.New, parseResponse)
}
