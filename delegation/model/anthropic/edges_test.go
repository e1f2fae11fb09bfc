package anthropic_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentry/agentry/delegation/model"
)

// TestAnAwkwardHistoryStillMakesAValidRequest replays a conversation the API
// would refuse if sent naively: arguments that are not JSON, an empty tool
// result, a user note right after tool results, an empty assistant text, and
// a tool without a schema. The golden file shows the repaired request.
func TestAnAwkwardHistoryStillMakesAValidRequest(t *testing.T) {
	api := newFakeAPI(t, reply{Status: 200, File: "text.response.json"})
	req := &model.Request{
		Messages: []model.Message{
			{Role: model.RoleUser, Content: "Check the two files."},
			{Role: model.RoleUser, Content: "Quickly, please."},
			{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{
				{ID: "toolu_1", Name: "filesystem.read_file", Args: json.RawMessage(`{"path": "a.md"`)},
				{ID: "toolu_2", Name: "web.fetch", Args: nil},
			}},
			{Role: model.RoleTool, ToolCallID: "toolu_1", Content: "error: arguments are not valid JSON"},
			{Role: model.RoleTool, ToolCallID: "toolu_2", Content: ""},
			{Role: model.RoleUser, Content: "Use b.md instead."},
		},
		Tools: []model.Tool{{Name: "web.fetch", Description: "Fetch a URL."}},
	}
	if _, err := newLLM(t, api).Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	assertGolden(t, "awkward.request.json", api.Requests()[0].Body)
}
