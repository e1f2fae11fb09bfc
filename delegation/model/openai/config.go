package openai

import (
	"net/http"

	"github.com/agentry/agentry/delegation/model/internal/httpapi"
)

// Environment variables ConfigFromEnv reads; the SDK's own names, so an
// existing OpenAI setup works unchanged.
const (
	EnvBaseURL = "OPENAI_BASE_URL"
	EnvAPIKey  = "OPENAI_API_KEY"
)

// DefaultBaseURL is OpenAI's own API, used when Config.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// ErrNoAPIKey is returned by New when no key is configured for a server that
// needs one.
var ErrNoAPIKey = httpapi.ErrNoAPIKey

// ErrNoModel is returned by New for an empty model name (a spec of "openai"
// without ":model").
var ErrNoModel = httpapi.ErrNoModel

// server is OpenAI's API, for the errors of a refused Config.
var server = httpapi.Server{Provider: provider, Example: "openai:gpt-4.1-mini", Host: "api.openai.com", EnvAPIKey: EnvAPIKey,
	KeyHint: " (for a server that needs no key, any non-empty value)"}

// Config says which server to talk to and how.
type Config struct {
	// BaseURL is the API root including its version path, e.g.
	// "https://openrouter.ai/api/v1" or "http://localhost:11434/v1". Empty
	// means OpenAI's own API.
	BaseURL string
	// APIKey is sent as a bearer token. It may be empty only when BaseURL is
	// a local server (localhost or a loopback address).
	APIKey string
	// HTTPClient carries the requests; nil means the SDK's default client.
	// Its Timeout, if set, bounds each attempt.
	HTTPClient *http.Client
}

// ConfigFromEnv reads OPENAI_BASE_URL and OPENAI_API_KEY through getenv
// (os.Getenv in the binary, a map in tests).
func ConfigFromEnv(getenv func(string) string) Config {
	return Config{BaseURL: getenv(EnvBaseURL), APIKey: getenv(EnvAPIKey)}
}

// check refuses a configuration that could only fail at the first call.
func (c Config) check(model string) error { return server.Check(model, c.APIKey, c.BaseURL) }

// APIError is the final error for a request the server refused (400, 401,
// 403, 404, ...): its status, the server's error type and its message.
type APIError = httpapi.APIError
