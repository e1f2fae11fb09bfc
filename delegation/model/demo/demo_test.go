package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/model"
)

var delegateTool = model.Tool{Name: DelegateTool, Parameters: json.RawMessage(`{"type":"object","properties":{
  "agent":{"type":"string","enum":["data-analyst","general-purpose","web-researcher"],
   "description":"Agent to delegate to:\n- data-analyst: Crunches numbers\n- web-researcher: Finds sources"},
  "task":{"type":"string"}}}`)}

func fast() *Model { return &Model{} }

func TestDemoDelegatesToEveryOfferedSpecialistInOneTurn(t *testing.T) {
	r, err := fast().Generate(context.Background(), &model.Request{Agent: "coord", Tools: []model.Tool{delegateTool},
		Messages: []model.Message{{Role: model.RoleUser, Content: "Plan Q4"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.ToolCalls) != 2 {
		t.Fatalf("calls = %+v", r.ToolCalls)
	}
	var a struct{ Agent, Task string }
	json.Unmarshal(r.ToolCalls[0].Args, &a)
	if a.Agent != "data-analyst" || !strings.Contains(a.Task, "Plan Q4") || !strings.Contains(a.Task, "Crunches numbers") {
		t.Fatalf("first call args = %s", r.ToolCalls[0].Args)
	}
}

func TestDemoSumsUpItsChildrensResults(t *testing.T) {
	msgs := []model.Message{
		{Role: model.RoleUser, Content: "Plan Q4"},
		{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{ID: "1", Name: DelegateTool}}},
		{Role: model.RoleTool, ToolCallID: "1", Content: `{"status":"ok","agent":"data-analyst","result":"Up 12%"}`},
		{Role: model.RoleTool, ToolCallID: "2", Content: `{"status":"timeout","agent":"web-researcher","error":"took too long"}`},
	}
	r, _ := fast().Generate(context.Background(), &model.Request{Agent: "coord", Tools: []model.Tool{delegateTool}, Messages: msgs})
	if len(r.ToolCalls) != 0 || !strings.Contains(r.Text, "data-analyst: Up 12%") || !strings.Contains(r.Text, "web-researcher could not help (timeout") {
		t.Fatalf("sum up = %q", r.Text)
	}
}

func TestDemoLeafAnswersDeterministically(t *testing.T) {
	req := &model.Request{Agent: "leaf", Messages: []model.Message{{Role: model.RoleUser, Content: "Why?"}}}
	a, _ := fast().Generate(context.Background(), req)
	b, _ := fast().Generate(context.Background(), req)
	if a.Text == "" || a.Text != b.Text || len(a.ToolCalls) != 0 || a.InputTokens == 0 || a.OutputTokens == 0 {
		t.Fatalf("answers %+v / %+v", a, b)
	}
}

// A leaf's answer reads as written: its two findings are never the same
// sentence, whatever the task.
func TestDemoLeafAnswersNeverRepeatAFinding(t *testing.T) {
	for i := range 200 {
		task := fmt.Sprintf("How did Q%d sales develop in region %d?", i%4+1, i)
		r, err := fast().Generate(context.Background(), &model.Request{Agent: "leaf", Messages: []model.Message{{Role: model.RoleUser, Content: task}}})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range findings {
			if strings.Count(r.Text, f) > 1 {
				t.Fatalf("task %q: %q says %q twice", task, r.Text, f)
			}
		}
	}
}

func TestDemoSimulatesLatencyThroughSleep(t *testing.T) {
	var got time.Duration
	m := &Model{Latency: 300 * time.Millisecond, Sleep: func(_ context.Context, d time.Duration) error { got = d; return nil }}
	m.Generate(context.Background(), &model.Request{Agent: "leaf", Messages: []model.Message{{Role: model.RoleUser, Content: "x"}}})
	if got < 300*time.Millisecond || got >= 600*time.Millisecond {
		t.Fatalf("slept %v, want 300–600ms", got)
	}
}

func TestDemoSummaryCallsAnswerWithASummary(t *testing.T) {
	r, _ := fast().Generate(context.Background(), &model.Request{Agent: "coord", Purpose: model.PurposeSummary, Tools: []model.Tool{delegateTool}, Messages: []model.Message{{Role: model.RoleUser, Content: "Plan Q4"}}})
	if len(r.ToolCalls) != 0 || !strings.HasPrefix(r.Text, "Summary") {
		t.Fatalf("summary = %+v", r)
	}
}

func TestDemoPassesTheCoreTaskDownWithoutContextOrEarlierNotes(t *testing.T) {
	nested := "Context from pm (a summary of its conversation so far):\nSummary: stuff\n\nYour task:\nPlan Q4" + focusMark + "Coordinates research."
	r, _ := fast().Generate(context.Background(), &model.Request{Agent: "coord", Tools: []model.Tool{delegateTool},
		Messages: []model.Message{{Role: model.RoleUser, Content: nested}}})
	var a struct{ Task string }
	json.Unmarshal(r.ToolCalls[0].Args, &a)
	if a.Task != "Plan Q4"+focusMark+"Crunches numbers" {
		t.Fatalf("delegated task = %q, want the core task and this child's focus only", a.Task)
	}
}

func TestDemoOrchestratesAgainForAFollowUp(t *testing.T) {
	tools := []model.Tool{{Name: "dispatch_agent"}, {Name: "get_skill"}, {Name: "get_agent_results"}}
	msgs := []model.Message{
		{Role: model.RoleUser, Content: "first request"},
		{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{ID: "1", Name: "get_skill"}}},
		{Role: model.RoleTool, ToolCallID: "1", Content: `{"domains":[{"domain":"filesystem","tools":["filesystem.read_file"]}]}`},
		{Role: model.RoleAssistant, Content: "Done with the first."},
		{Role: model.RoleUser, Content: "a follow-up"},
	}
	r, err := fast().Generate(context.Background(), &model.Request{Agent: "office", Tools: tools, Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != "get_skill" {
		t.Fatalf("follow-up turn = %+v, want discovery again", r)
	}
}

func TestARangeRuleSetsOneFieldTheSameEachTime(t *testing.T) {
	task := "Return JSON: { Score: number, sCore: number }\n- score must be between 0 and 10"
	for range 20 {
		got := shapeAnswer(task, 3).(map[string]any)
		if got["Score"] != 7.5 || got["sCore"] == 7.5 {
			t.Fatalf("answer = %v: want Score, the first field named score but for case, set to 7.5", got)
		}
	}
	exact := shapeAnswer("Return JSON: { Score: number, score: number }\n- score must be between 0 and 10", 3).(map[string]any)
	if exact["score"] != 7.5 || exact["Score"] == 7.5 {
		t.Errorf("answer = %v: want the field of the very name set", exact)
	}
}
