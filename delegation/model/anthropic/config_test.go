package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/anthropic"
)

func TestNewRefusesAMissingKeyAndNamesTheVariable(t *testing.T) {
	tests := []struct {
		name    string
		baseURL string
	}{
		{"for OpenAI itself", ""},
		{"for a remote proxy", "https://llm-gateway.example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := anthropic.New("claude-sonnet-4-5", anthropic.Config{BaseURL: tt.baseURL})
			if !errors.Is(err, anthropic.ErrNoAPIKey) {
				t.Fatalf("New without a key = %v, want ErrNoAPIKey", err)
			}
			if !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
				t.Errorf("error %q does not name ANTHROPIC_API_KEY", err)
			}
		})
	}
}

func TestALocalServerNeedsNoKey(t *testing.T) {
	api := newFakeAPI(t, reply{Status: 200, File: "text.response.json"})
	llm, err := anthropic.New("claude-haiku-4-5", anthropic.Config{BaseURL: baseURL(api)})
	if err != nil {
		t.Fatalf("New for %s without a key: %v", baseURL(api), err)
	}
	if _, err := llm.Generate(context.Background(), userSays("hi")); err != nil {
		t.Fatal(err)
	}
	h := api.Requests()[0].Header
	if h.Get("X-Api-Key") != "" || h.Get("Authorization") != "" {
		t.Errorf("credentials sent without a key: x-api-key %q, Authorization %q", h.Get("X-Api-Key"), h.Get("Authorization"))
	}
}

func TestNewRefusesAnEmptyModelName(t *testing.T) {
	_, err := anthropic.New("", anthropic.Config{APIKey: testKey})
	if !errors.Is(err, anthropic.ErrNoModel) {
		t.Errorf("New(\"\") = %v, want ErrNoModel", err)
	}
}

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
	llm, err := anthropic.New("claude-sonnet-4-5", anthropic.Config{
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
	llm, err := anthropic.New("claude-sonnet-4-5", anthropic.Config{BaseURL: "http://" + addr})
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
