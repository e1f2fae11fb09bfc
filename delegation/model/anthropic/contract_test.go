package anthropic_test

import (
	"net/http"
	"testing"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/anthropic"
	"github.com/agentry/agentry/delegation/model/modeltest"
)

func TestAnthropicPassesTheProviderContract(t *testing.T) {
	modeltest.RunHTTP(t, modeltest.HTTPSubject{
		New: func(name, base, key string, client *http.Client) (model.LLM, error) {
			return anthropic.New(name, anthropic.Config{BaseURL: base, APIKey: key, HTTPClient: client})
		},
		Model:       "claude-sonnet-4-5",
		Root:        func(url string) string { return url },
		EnvAPIKey:   "ANTHROPIC_API_KEY",
		ErrNoAPIKey: anthropic.ErrNoAPIKey, ErrNoModel: anthropic.ErrNoModel,
		AuthHeaders: []string{"X-Api-Key", "Authorization"},
		Text:        "text.response.json", RateLimited: "error429.response.json",
		ServerError: "error500.response.json", BadRequest: "error400.response.json",
	})
}
