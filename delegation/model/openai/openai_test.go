package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/openai"
)

const testKey = "sk-test-123"

func newLLM(t *testing.T, api *fakeServer) *openai.LLM {
	t.Helper()
	llm, err := openai.New("gpt-4.1-mini", openai.Config{BaseURL: baseURL(api), APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	return llm
}

var researchTools = []model.Tool{
	{
		Name:        "delegate",
		Description: "Hand a task to a sub-agent.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"agent":{"type":"string","enum":["data-analyst","web-researcher"],"description":"Who does it."},"task":{"type":"string"}},"required":["agent","task"],"additionalProperties":false}`),
	},
	{
		Name:        "filesystem.read_file",
		Description: "Read a file in the workspace.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
	},
}

func TestGenerateReturnsATextAnswerWithUsage(t *testing.T) {
	api := newFakeAPI(t, reply{Status: 200, File: "text.response.json"})
	got, err := newLLM(t, api).Generate(context.Background(), &model.Request{
		Agent:    "geographer",
		System:   "You answer in one sentence.",
		Messages: []model.Message{{Role: model.RoleUser, Content: "What is the capital of France?"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "Paris is the capital of France." || len(got.ToolCalls) != 0 {
		t.Errorf("response = %+v, want the text and no tool calls", got)
	}
	if got.InputTokens != 19 || got.OutputTokens != 8 {
		t.Errorf("tokens = %d in, %d out; want 19, 8", got.InputTokens, got.OutputTokens)
	}
	reqs := api.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Method != http.MethodPost || r.Path != "/v1/chat/completions" {
		t.Errorf("request %s %s, want POST /v1/chat/completions", r.Method, r.Path)
	}
	if auth := r.Header.Get("Authorization"); auth != "Bearer "+testKey {
		t.Errorf("Authorization = %q, want the bearer key", auth)
	}
	assertGolden(t, "text.request.json", r.Body)
}

func TestGeneratePlaysAToolCallRoundTrip(t *testing.T) {
	api := newFakeAPI(t,
		reply{Status: 200, File: "toolcall.response.json"},
		reply{Status: 200, File: "toolresult.response.json"})
	llm := newLLM(t, api)
	conversation := []model.Message{{Role: model.RoleUser, Content: "Summarise Q4 sales using the notes."}}
	req := &model.Request{System: "You coordinate research.", Messages: conversation, Tools: researchTools}

	first, err := llm.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	wantCalls := []model.ToolCall{
		{ID: "call_abc123", Name: "delegate", Args: json.RawMessage(`{"agent":"data-analyst","task":"Q4 sales trends"}`)},
		{ID: "call_def456", Name: "filesystem.read_file", Args: json.RawMessage(`{"path":"notes/q4.md"}`)},
	}
	assertCalls(t, first.ToolCalls, wantCalls)
	if first.Text != "" || first.InputTokens != 182 || first.OutputTokens != 51 {
		t.Errorf("first turn = %+v, want no text, 182 in, 51 out", first)
	}
	if first.CachedInputTokens != 64 {
		t.Errorf("cached input tokens = %d, want prompt_tokens_details.cached_tokens (64)", first.CachedInputTokens)
	}
	assertGolden(t, "toolcall.request.json", api.Requests()[0].Body)

	conversation = append(conversation,
		model.Message{Role: model.RoleAssistant, ToolCalls: first.ToolCalls},
		model.Message{Role: model.RoleTool, ToolCallID: "call_abc123", Content: `{"status":"ok","result":"Q4 up 12%"}`},
		model.Message{Role: model.RoleTool, ToolCallID: "call_def456", Content: "Q4: strong December."},
	)
	req.Messages = conversation
	second, err := llm.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if second.Text != "Q4 sales rose 12%, in line with the notes." || len(second.ToolCalls) != 0 {
		t.Errorf("second turn = %+v, want the final text", second)
	}
	assertGolden(t, "toolresult.request.json", api.Requests()[1].Body)
}

func assertCalls(t *testing.T, got, want []model.ToolCall) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d tool calls %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Name != want[i].Name || string(got[i].Args) != string(want[i].Args) {
			t.Errorf("call %d = {%s %s %s}, want {%s %s %s}", i,
				got[i].ID, got[i].Name, got[i].Args, want[i].ID, want[i].Name, want[i].Args)
		}
	}
}

func TestGenerateSortsFailuresIntoTransientAndFinal(t *testing.T) {
	tests := []struct {
		name      string
		reply     reply
		transient bool
		wait      time.Duration
		contains  string
	}{
		{"429 is transient and carries Retry-After",
			reply{Status: 429, Header: map[string]string{"Retry-After": "7"}, File: "error429.response.json"},
			true, 7 * time.Second, "rate_limit_exceeded: Rate limit reached"},
		{"429 prefers retry-after-ms",
			reply{Status: 429, Header: map[string]string{"Retry-After": "7", "Retry-After-Ms": "250"}, File: "error429.response.json"},
			true, 250 * time.Millisecond, "Rate limit reached"},
		{"500 is transient",
			reply{Status: 500, File: "error500.response.json"}, true, 0, "server_error: The server had an error"},
		{"502 with an HTML page is transient",
			reply{Status: 502, Header: map[string]string{"Content-Type": "text/html"}, File: "bad_gateway.html"}, true, 0, "Bad Gateway"},
		{"400 is final and says why",
			reply{Status: 400, File: "error400.response.json"}, false, 0, "The model `gpt-9` does not exist"},
		{"401 is final",
			reply{Status: 401, File: "error400.response.json"}, false, 0, "401 Unauthorized"},
		{"a malformed body is final and says so",
			reply{Status: 200, File: "malformed.response.json"}, false, 0, "malformed response"},
		{"a completion without choices is final",
			reply{Status: 200, File: "nochoices.response.json"}, false, 0, "no choices"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFakeAPI(t, tt.reply)
			_, err := newLLM(t, api).Generate(context.Background(), userSays("hi"))
			if err == nil {
				t.Fatal("Generate succeeded, want an error")
			}
			wait, transient := model.IsTransient(err)
			if transient != tt.transient || wait != tt.wait {
				t.Errorf("error %q: transient=%v wait=%v, want %v %v", err, transient, wait, tt.transient, tt.wait)
			}
			if !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("error %q does not mention %q", err, tt.contains)
			}
			if n := len(api.Requests()); n != 1 {
				t.Errorf("server saw %d requests, want 1: the runtime retries, not the SDK", n)
			}
		})
	}
}

func TestGenerateReportsARefusalAsAPIError(t *testing.T) {
	api := newFakeAPI(t, reply{Status: 404, File: "error400.response.json"})
	_, err := newLLM(t, api).Generate(context.Background(), userSays("hi"))
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("error %v is not an *openai.APIError", err)
	}
	if apiErr.StatusCode != 404 || apiErr.Type != "model_not_found" {
		t.Errorf("APIError = %+v, want status 404 and the server's type", apiErr)
	}
}

func userSays(s string) *model.Request {
	return &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: s}}}
}
