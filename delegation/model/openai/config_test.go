package openai_test

import (
	"context"
	"testing"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/openai"
)

func TestConfigFromEnvReadsTheSDKsVariables(t *testing.T) {
	env := map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1", "OPENAI_API_KEY": "ollama"}
	got := openai.ConfigFromEnv(func(k string) string { return env[k] })
	if got.BaseURL != env["OPENAI_BASE_URL"] || got.APIKey != env["OPENAI_API_KEY"] {
		t.Errorf("ConfigFromEnv = %+v, want the two variables", got)
	}
}

func TestFactoryBuildsNamedModelsForTheResolver(t *testing.T) {
	providers := model.Providers{"openai": openai.Factory(openai.Config{APIKey: testKey})}
	llm, err := providers.Resolve("mini", map[string]string{"mini": "openai:gpt-4.1-mini"})
	if err != nil {
		t.Fatal(err)
	}
	if llm.Name() != "openai:gpt-4.1-mini" {
		t.Errorf("Name() = %q, want openai:gpt-4.1-mini", llm.Name())
	}
}

func TestConfigAloneDecidesServerAndKey(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment")
	api := newFakeAPI(t, reply{Status: 200, File: "text.response.json"})
	if _, err := newLLM(t, api).Generate(context.Background(), userSays("hi")); err != nil {
		t.Fatalf("Generate with other settings in the environment: %v", err)
	}
	if auth := api.Requests()[0].Header.Get("Authorization"); auth != "Bearer "+testKey {
		t.Errorf("Authorization = %q, want the configured key", auth)
	}
}

func TestACallWithinASpanCarriesItsTraceparent(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	api := newFakeAPI(t, reply{Status: 200, File: "text.response.json"}, reply{Status: 200, File: "text.response.json"})
	llm := newLLM(t, api)
	ctx := model.WithSpan(context.Background(), tp[3:35], tp[36:52])
	resp, err := llm.Generate(ctx, userSays("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Model != "gpt-4.1-mini-2025-04-14" {
		t.Errorf("Model = %q, want the one that answered", resp.Model)
	}
	if _, err := llm.Generate(context.Background(), userSays("hi")); err != nil {
		t.Fatal(err)
	}
	if got := api.Requests()[0].Header.Get("traceparent"); got != tp {
		t.Errorf("traceparent = %q, want %q", got, tp)
	}
	if got := api.Requests()[1].Header.Get("traceparent"); got != "" {
		t.Errorf("a call outside any span sent traceparent %q", got)
	}
}
