package openai_test

import (
	"net/http"
	"testing"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/modeltest"
	"github.com/agentry/agentry/delegation/model/openai"
)

func TestOpenAIPassesTheProviderContract(t *testing.T) {
	modeltest.RunHTTP(t, modeltest.HTTPSubject{
		New: func(name, base, key string, client *http.Client) (model.LLM, error) {
			return openai.New(name, openai.Config{BaseURL: base, APIKey: key, HTTPClient: client})
		},
		Model:       "gpt-4.1-mini",
		Root:        func(url string) string { return url + "/v1" },
		EnvAPIKey:   "OPENAI_API_KEY",
		ErrNoAPIKey: openai.ErrNoAPIKey, ErrNoModel: openai.ErrNoModel,
		AuthHeaders: []string{"Authorization"},
		Text:        "text.response.json", RateLimited: "error429.response.json",
		ServerError: "error500.response.json", BadRequest: "error400.response.json",
	})
}
