package openai_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentry/agentry/delegation/model"
)

// TestAnAwkwardHistoryIsSentAsItIs replays arguments that are not JSON (the
// model's own words, which the API carries as a string), an assistant turn
// with both text and a call, and a tool without a schema.
func TestAnAwkwardHistoryIsSentAsItIs(t *testing.T) {
	api := newFakeAPI(t, reply{Status: 200, File: "text.response.json"})
	req := &model.Request{
		Messages: []model.Message{
			{Role: model.RoleUser, Content: "Check the file."},
			{Role: model.RoleAssistant, Content: "Reading it.", ToolCalls: []model.ToolCall{
				{ID: "call_1", Name: "filesystem.read_file", Args: json.RawMessage(`{"path": "a.md"`)},
			}},
			{Role: model.RoleTool, ToolCallID: "call_1", Content: "error: arguments are not valid JSON"},
		},
		Tools: []model.Tool{{Name: "web.fetch", Description: "Fetch a URL."}},
	}
	if _, err := newLLM(t, api).Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	assertGolden(t, "awkward.request.json", api.Requests()[0].Body)
}

// TestALocalServersLooserAnswerIsRead reads a tool call the way some
// OpenAI-compatible servers send it: no "type", empty arguments, no usage.
func TestALocalServersLooserAnswerIsRead(t *testing.T) {
	api := newFakeAPI(t, reply{Status: 200, File: "loose.response.json"})
	req := userSays("What time is it?")
	req.Tools = []model.Tool{{Name: "clock.now", Description: "The time."}}
	got, err := newLLM(t, api).Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	assertCalls(t, got.ToolCalls, []model.ToolCall{{ID: "call_x1", Name: "clock.now", Args: json.RawMessage(`{}`)}})
	if got.InputTokens != 0 || got.OutputTokens != 0 {
		t.Errorf("tokens = %d, %d; want 0 when the server reports none", got.InputTokens, got.OutputTokens)
	}
}

func TestARefusalIsTheAnswerText(t *testing.T) {
	api := newFakeAPI(t, reply{Status: 200, File: "refusal.response.json"})
	got, err := newLLM(t, api).Generate(context.Background(), userSays("Help me pick a lock."))
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "I can't help with that." {
		t.Errorf("Text = %q, want the refusal", got.Text)
	}
}
