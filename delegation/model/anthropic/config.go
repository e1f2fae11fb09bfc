package anthropic

import (
	"fmt"
	"net/http"

	"github.com/agentry/agentry/delegation/model/internal/httpapi"
)

// Environment variables ConfigFromEnv reads; the SDK's own names, so an
// existing Anthropic setup works unchanged.
const (
	EnvBaseURL = "ANTHROPIC_BASE_URL"
	EnvAPIKey  = "ANTHROPIC_API_KEY"
)

// DefaultMaxTokens caps each answer when Config.MaxTokens is 0. The Messages
// API requires a cap; this one leaves room for long answers while keeping a
// non-streaming call well inside the SDK's ten-minute limit.
const DefaultMaxTokens = 4096

// ErrNoAPIKey is returned by New when no key is configured for a server that
// needs one.
var ErrNoAPIKey = httpapi.ErrNoAPIKey

// ErrNoModel is returned by New for an empty model name (a spec of
// "anthropic" without ":model").
var ErrNoModel = httpapi.ErrNoModel

// server is Anthropic's API, for the errors of a refused Config.
var server = httpapi.Server{Provider: provider, Example: "anthropic:claude-sonnet-4-5", Host: "api.anthropic.com", EnvAPIKey: EnvAPIKey}

// APIError is the final error for a request the server refused (400, 401,
// 403, 404, ...): its status, the server's error type and its message.
type APIError = httpapi.APIError

// Config says which server to talk to and how.
type Config struct {
	// BaseURL is the API root without the version path, e.g.
	// "https://api.anthropic.com" or a local proxy "http://localhost:4000".
	// Empty means Anthropic's own API.
	BaseURL string
	// APIKey is sent as x-api-key. It may be empty only when BaseURL is a
	// local server (localhost or a loopback address).
	APIKey string
	// HTTPClient carries the requests; nil means the SDK's default client.
	// Its Timeout, if set, bounds each attempt.
	HTTPClient *http.Client
	// MaxTokens caps each answer's output tokens; 0 means DefaultMaxTokens.
	// It must not be negative, nor so large (above about 21,000) that the SDK
	// would demand streaming, which this adapter does not use.
	MaxTokens int64
}

// ConfigFromEnv reads ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY through
// getenv (os.Getenv in the binary, a map in tests).
func ConfigFromEnv(getenv func(string) string) Config {
	return Config{BaseURL: getenv(EnvBaseURL), APIKey: getenv(EnvAPIKey)}
}

// check refuses a configuration that could only fail at the first call.
func (c Config) check(model string) error {
	if c.MaxTokens < 0 {
		return fmt.Errorf("anthropic: max tokens %d: must not be negative", c.MaxTokens)
	}
	return server.Check(model, c.APIKey, c.BaseURL)
}

func (c Config) maxTokens() int64 {
	if c.MaxTokens == 0 {
		return DefaultMaxTokens
	}
	return c.MaxTokens
}
