package anthropic_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/anthropic"
)

func TestConfigFromEnvReadsTheSDKsVariables(t *testing.T) {
	env := map[string]string{"ANTHROPIC_BASE_URL": "http://localhost:4000", "ANTHROPIC_API_KEY": "sk-ant-x"}
	got := anthropic.ConfigFromEnv(func(k string) string { return env[k] })
	if got.BaseURL != env["ANTHROPIC_BASE_URL"] || got.APIKey != env["ANTHROPIC_API_KEY"] {
		t.Errorf("ConfigFromEnv = %+v, want the two variables", got)
	}
}

func TestFactoryBuildsNamedModelsForTheResolver(t *testing.T) {
	providers := model.Providers{"anthropic": anthropic.Factory(anthropic.Config{APIKey: testKey})}
	llm, err := providers.Resolve("sonnet", map[string]string{"sonnet": "anthropic:claude-sonnet-4-5"})
	if err != nil {
		t.Fatal(err)
	}
	if llm.Name() != "anthropic:claude-sonnet-4-5" {
		t.Errorf("Name() = %q, want anthropic:claude-sonnet-4-5", llm.Name())
	}
}

func TestMaxTokensDefaultsAndCanBeSet(t *testing.T) {
	tests := []struct {
		name string
		set  int64
		want float64
	}{
		{"zero means the default", 0, anthropic.DefaultMaxTokens},
		{"a set value is sent", 1000, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFakeAPI(t, reply{Status: 200, File: "text.response.json"})
			llm, err := anthropic.New("claude-sonnet-4-5", anthropic.Config{BaseURL: baseURL(api), APIKey: testKey, MaxTokens: tt.set})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := llm.Generate(context.Background(), userSays("hi")); err != nil {
				t.Fatal(err)
			}
			var body struct {
				MaxTokens float64 `json:"max_tokens"`
			}
			if err := json.Unmarshal(api.Requests()[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			if body.MaxTokens != tt.want {
				t.Errorf("max_tokens = %v, want %v", body.MaxTokens, tt.want)
			}
		})
	}
}

func TestNewRefusesMaxTokensItCouldNotSend(t *testing.T) {
	tests := []struct {
		name string
		max  int64
	}{
		{"a negative cap", -1},
		{"a cap too large for a call without streaming", 64000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := anthropic.New("claude-sonnet-4-5", anthropic.Config{APIKey: testKey, MaxTokens: tt.max}); err == nil {
				t.Errorf("New with MaxTokens %d succeeded, want an error", tt.max)
			}
		})
	}
}

func TestConfigAloneDecidesServerAndKey(t *testing.T) {
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-from-the-environment")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "token-from-the-environment")
	api := newFakeAPI(t, reply{Status: 200, File: "text.response.json"})
	if _, err := newLLM(t, api).Generate(context.Background(), userSays("hi")); err != nil {
		t.Fatalf("Generate with other settings in the environment: %v", err)
	}
	h := api.Requests()[0].Header
	if h.Get("X-Api-Key") != testKey || h.Get("Authorization") != "" {
		t.Errorf("x-api-key %q, Authorization %q; want only the configured key", h.Get("X-Api-Key"), h.Get("Authorization"))
	}
}
