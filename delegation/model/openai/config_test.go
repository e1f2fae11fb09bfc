package openai_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/openai"
)

func TestNewRefusesAMissingKeyAndNamesTheVariable(t *testing.T) {
	tests := []struct {
		name    string
		baseURL string
	}{
		{"for OpenAI itself", ""},
		{"for a remote compatible server", "https://openrouter.ai/api/v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := openai.New("gpt-4.1-mini", openai.Config{BaseURL: tt.baseURL})
			if !errors.Is(err, openai.ErrNoAPIKey) {
				t.Fatalf("New without a key = %v, want ErrNoAPIKey", err)
			}
			if !strings.Contains(err.Error(), "OPENAI_API_KEY") {
				t.Errorf("error %q does not name OPENAI_API_KEY", err)
			}
		})
	}
}

func TestALocalServerNeedsNoKey(t *testing.T) {
	api := newFakeAPI(t, reply{Status: 200, File: "text.response.json"})
	llm, err := openai.New("llama3.2", openai.Config{BaseURL: baseURL(api)})
	if err != nil {
		t.Fatalf("New for %s without a key: %v", baseURL(api), err)
	}
	if _, err := llm.Generate(context.Background(), userSays("hi")); err != nil {
		t.Fatal(err)
	}
	if auth := api.Requests()[0].Header.Get("Authorization"); auth != "" {
		t.Errorf("Authorization = %q, want none sent without a key", auth)
	}
}

func TestNewRefusesAnEmptyModelName(t *testing.T) {
	_, err := openai.New("", openai.Config{APIKey: testKey})
	if !errors.Is(err, openai.ErrNoModel) {
		t.Errorf("New(\"\") = %v, want ErrNoModel", err)
	}
}

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

func TestCancellationStopsTheCallAndIsNotRetried(t *testing.T) {
	api := newFakeAPI(t, reply{Hold: true})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := newLLM(t, api).Generate(ctx, userSays("hi"))
		done <- err
	}()
	waitForRequest(t, api)
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Generate after cancel = %v, want context.Canceled", err)
	}
	if _, ok := model.IsTransient(err); ok {
		t.Errorf("a cancelled call must not be retried, got transient %v", err)
	}
}

func TestAnAttemptTimeoutIsTransient(t *testing.T) {
	api := newFakeAPI(t, reply{Hold: true})
	llm, err := openai.New("gpt-4.1-mini", openai.Config{
		BaseURL: baseURL(api), APIKey: testKey, HTTPClient: &http.Client{Timeout: 50 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = llm.Generate(context.Background(), userSays("hi"))
	if _, ok := model.IsTransient(err); !ok {
		t.Errorf("Generate past the client timeout = %v, want a transient error", err)
	}
}

func TestARefusedConnectionIsTransient(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	llm, err := openai.New("gpt-4.1-mini", openai.Config{BaseURL: "http://" + addr + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = llm.Generate(context.Background(), userSays("hi"))
	if _, ok := model.IsTransient(err); !ok {
		t.Errorf("Generate against a closed port = %v, want a transient error", err)
	}
}

func TestAToolWhoseSchemaIsNotAnObjectIsRefusedBeforeSending(t *testing.T) {
	api := newFakeAPI(t)
	req := userSays("hi")
	req.Tools = []model.Tool{{Name: "broken", Parameters: []byte(`[1,2]`)}}
	_, err := newLLM(t, api).Generate(context.Background(), req)
	if err == nil || !strings.Contains(err.Error(), `tool "broken"`) {
		t.Errorf("Generate = %v, want an error naming the tool", err)
	}
	if n := len(api.Requests()); n != 0 {
		t.Errorf("server saw %d requests, want none", n)
	}
}

func waitForRequest(t *testing.T, api *fakeServer) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(api.Requests()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the server never saw the request")
		}
		time.Sleep(time.Millisecond)
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
