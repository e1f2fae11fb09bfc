package delegation

import (
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/demo"
	"github.com/agentry/agentry/trace"
)

func TestTheDemoModelPlaysAnOrchestratorOffline(t *testing.T) {
	f := dispatchSetup(t, map[string]string{"office": "tools: [filesystem, todo]\norchestrator: true\n"}, "office: [{say: x}]\n", &recorder{})
	f.rt.cfg.Models = model.Providers{"script": func(string) (model.LLM, error) { return &demo.Model{}, nil }}
	res := f.run(t, "office", "Send Bob the overdue tasks report and schedule a review meeting")
	if res.Status != trace.StatusOK || !strings.Contains(res.Result, "gather:") || !strings.Contains(res.Result, "coordinated 3 agents") {
		t.Fatalf("result = %+v", res)
	}
	for _, name := range []string{"execute_tool get_skill", "execute_tool get_agent_results", "invoke_agent gather", "invoke_agent act", "invoke_agent follow_up"} {
		f.sink.one(t, name)
	}
	gather, act := f.sink.one(t, "invoke_agent gather"), f.sink.one(t, "invoke_agent act")
	if act.StartedAt.Before(gather.EndedAt) {
		t.Error("act started before gather, on which it depends, ended")
	}
}
