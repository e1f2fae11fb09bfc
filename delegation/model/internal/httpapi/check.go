package httpapi

import (
	"cmp"
	"errors"
	"fmt"
)

// The adapters' sentinels for a configuration that could only fail at the
// first call; each adapter exports them under its own name.
var (
	ErrNoAPIKey = errors.New("no API key")
	ErrNoModel  = errors.New("no model name")
)

// Server is what an adapter says about the API it talks to when its
// configuration is refused.
type Server struct {
	Provider  string // "openai"
	Example   string // a spec with a model name: "openai:gpt-4.1-mini"
	Host      string // the provider's own API, when BaseURL is empty: "api.openai.com"
	EnvAPIKey string // the variable that sets the key
	KeyHint   string // more about the key, after "set ENV", or ""
}

// Check refuses an empty model name, and an empty key for a server that
// needs one: any but a local one (IsLocal).
func (s Server) Check(model, apiKey, baseURL string) error {
	if model == "" {
		return fmt.Errorf("%s: %w: use a spec like %s", s.Provider, ErrNoModel, s.Example)
	}
	if apiKey == "" && !IsLocal(baseURL) {
		return fmt.Errorf("%s: %w for %s: set %s%s", s.Provider, ErrNoAPIKey, cmp.Or(baseURL, s.Host), s.EnvAPIKey, s.KeyHint)
	}
	return nil
}
