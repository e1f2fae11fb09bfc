package temporal_test

import (
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/trace"
)

// Orchestrators (dispatch_agent, get_agent_results) are not built on
// Temporal: rather than run without their tools (every dispatch_agent call
// answered "unknown tool"), a run of one is refused with the reason, and a
// delegation to one is refused as kind engine, its parent reading why.
func TestAnOrchestratorIsRefusedOnTemporalWithTheReason(t *testing.T) {
	const script = "orch:\n  - calls: [{tool: dispatch_agent, args: {agent_id: reader, mission: read, skills: [filesystem.read_file]}}]\n  - say: dispatched\n  - say: all read\n" +
		"reader:\n  - say: read it\n" +
		"boss:\n  - calls: [{tool: delegate, args: {agent: orch, task: plan}}]\n  - say: orch was refused\n"
	f := newFixture(t, script)
	if res, err := f.rt.Run(t.Context(), delegation.Request{Agent: "orch", Task: "go"}); err != nil || res.Status != trace.StatusOK {
		t.Fatalf("in-process, the orchestrator runs: %+v, %v", res, err)
	}
	got := f.runTemporal(t, delegation.Request{Agent: "orch", Task: "go"})
	if got.Status != trace.StatusError || !strings.Contains(got.Error, delegation.ErrNotDurable.Error()) {
		t.Errorf("run of an orchestrator on Temporal = %+v, want refused with the reason", got)
	}
	got = f.runTemporal(t, delegation.Request{Agent: "boss", Task: "go"})
	if got.Status != trace.StatusOK || got.Result != "orch was refused" {
		t.Fatalf("boss's run = %+v", got)
	}
	lines := strings.Join(shape(t, f, got.RunID), "\n")
	if !strings.Contains(lines, "refused="+delegation.RefusedEngine) || strings.Contains(lines, "invoke_agent \"invoke_agent orch\"") {
		t.Errorf("the delegation to orch was not refused as kind engine:\n%s", lines)
	}
}
