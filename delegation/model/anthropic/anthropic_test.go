package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/anthropic"
)

const testKey = "sk-ant-test-123"

func newLLM(t *testing.T, api *fakeServer) *anthropic.LLM {
	t.Helper()
	llm, err := anthropic.New("claude-sonnet-4-5", anthropic.Config{BaseURL: baseURL(api), APIKey: testKey})
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
	if got.InputTokens != 21 || got.OutputTokens != 10 {
		t.Errorf("tokens = %d in, %d out; want 21, 10", got.InputTokens, got.OutputTokens)
	}
	reqs := api.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Method != http.MethodPost || r.Path != "/v1/messages" {
		t.Errorf("request %s %s, want POST /v1/messages", r.Method, r.Path)
	}
	if key := r.Header.Get("X-Api-Key"); key != testKey {
		t.Errorf("x-api-key = %q, want the key", key)
	}
	if v := r.Header.Get("Anthropic-Version"); v == "" {
		t.Error("anthropic-version header missing")
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
		{ID: "toolu_01A09q90qw90lq917835lq9", Name: "delegate", Args: json.RawMessage(`{"agent": "data-analyst", "task": "Q4 sales trends"}`)},
		{ID: "toolu_01B2c3d4e5f6g7h8i9j0k1l2", Name: "filesystem.read_file", Args: json.RawMessage(`{"path": "notes/q4.md"}`)},
	}
	assertCalls(t, first.ToolCalls, wantCalls)
	if first.Text != "I'll ask the analyst and read the notes." {
		t.Errorf("first text = %q", first.Text)
	}
	if first.InputTokens != 402+100+50 || first.OutputTokens != 96 {
		t.Errorf("tokens = %d in, %d out; want 552 (cache reads and writes included), 96", first.InputTokens, first.OutputTokens)
	}
	if first.CachedInputTokens != 50 {
		t.Errorf("cached input tokens = %d, want the 50 cache reads", first.CachedInputTokens)
	}
	assertGolden(t, "toolcall.request.json", api.Requests()[0].Body)

	conversation = append(conversation,
		model.Message{Role: model.RoleAssistant, Content: first.Text, ToolCalls: first.ToolCalls},
		model.Message{Role: model.RoleTool, ToolCallID: first.ToolCalls[0].ID, Content: `{"status":"ok","result":"Q4 up 12%"}`},
		model.Message{Role: model.RoleTool, ToolCallID: first.ToolCalls[1].ID, Content: "Q4: strong December."},
	)
	req.Messages = conversation
	second, err := llm.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if second.Text != "Q4 sales rose 12%, in line with the notes." || len(second.ToolCalls) != 0 {
		t.Errorf("second turn = %+v, want the two text blocks joined", second)
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
			reply{Status: 429, Header: map[string]string{"Retry-After": "12"}, File: "error429.response.json"},
			true, 12 * time.Second, "rate_limit_error: This request would exceed"},
		{"529 overloaded is transient",
			reply{Status: 529, File: "error529.response.json"}, true, 0, "overloaded_error"},
		{"500 is transient",
			reply{Status: 500, File: "error500.response.json"}, true, 0, "api_error: Internal server error"},
		{"502 with an HTML page is transient",
			reply{Status: 502, Header: map[string]string{"Content-Type": "text/html"}, File: "bad_gateway.html"}, true, 0, "Bad Gateway"},
		{"400 is final and says why",
			reply{Status: 400, File: "error400.response.json"}, false, 0, "invalid_request_error: messages: roles must alternate"},
		{"401 is final",
			reply{Status: 401, File: "error401.response.json"}, false, 0, "authentication_error: invalid x-api-key"},
		{"404 is final",
			reply{Status: 404, File: "error404.response.json"}, false, 0, "not_found_error: model: claude-nonexistent"},
		{"a malformed body is final and says so",
			reply{Status: 200, File: "malformed.response.json"}, false, 0, "malformed response"},
		{"an answer without content is final",
			reply{Status: 200, File: "nocontent.response.json"}, false, 0, "no content"},
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
	api := newFakeAPI(t, reply{Status: 404, File: "error404.response.json"})
	_, err := newLLM(t, api).Generate(context.Background(), userSays("hi"))
	var apiErr *anthropic.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("error %v is not an *anthropic.APIError", err)
	}
	if apiErr.StatusCode != 404 || apiErr.Type != "not_found_error" {
		t.Errorf("APIError = %+v, want status 404 and the server's type", apiErr)
	}
}

func userSays(s string) *model.Request {
	return &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: s}}}
}

func TestACallWithinASpanCarriesItsTraceparent(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	api := newFakeAPI(t, reply{Status: 200, File: "text.response.json"})
	ctx := model.WithSpan(context.Background(), tp[3:35], tp[36:52])
	req := &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}
	resp, err := newLLM(t, api).Generate(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Model != "claude-sonnet-4-5-20250929" {
		t.Errorf("Model = %q, want the one that answered", resp.Model)
	}
	if got := api.Requests()[0].Header.Get("traceparent"); got != tp {
		t.Errorf("traceparent = %q, want %q", got, tp)
	}
}
