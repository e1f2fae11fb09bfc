package main

import (
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/orchestrator"
)

func TestSeed003sOrchestrationDepthIsMaxDepthOrANamedError(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeFile(t, dir, "agentry.yaml", "agent:\n  max_orchestration_depth: 5\n")
	cfg, err := loadWith(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Delegation.MaxDepth != 5 {
		t.Errorf("max_depth = %d, want 5 from agent.max_orchestration_depth", cfg.Delegation.MaxDepth)
	}
	writeFile(t, dir, "agentry.yaml", "agent:\n  max_orchestration_depth: 5\ndelegation:\n  max_depth: 4\n")
	if _, err := loadWith(t, nil); err == nil || !strings.Contains(err.Error(), "keep delegation.max_depth") {
		t.Fatalf("err = %v, want one naming delegation.max_depth", err)
	}
}

// Seed 001's figures are the defaults of orchestrator conversations; every
// other run keeps round one's meaning (no window, no per-turn caps, no
// loop limit) unless agentry.yaml or AGENTRY_LIMITS__* sets a key, which
// then applies to every run; 0 turns a limit off (issue 29).
func TestLimitsDefaultPerKindOfRunAndASetKeyAppliesToEvery(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	cfg, err := loadWith(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	plain, orch := cfg.Limits.runtime()
	if orch != orchestrator.DefaultLimits() {
		t.Errorf("orchestrator limits = %+v, want seed 001's", orch)
	}
	if plain.WindowCalls != 0 || plain.TurnAgents != 0 || plain.TurnToolCalls != 0 || plain.OrchestratorTurns != 0 ||
		plain.ToolTimeout != 30*time.Second || plain.BreakerFailures != 5 || plain.DispatchTimeout != 30*time.Second {
		t.Errorf("plain limits = %+v, want no window, caps or loop limit, and the tool timeout and breakers", plain)
	}
	cfg, err = loadWith(t, []string{"AGENTRY_LIMITS__WINDOW_CALLS=0"})
	if err != nil {
		t.Fatal(err)
	}
	if _, orch = cfg.Limits.runtime(); orch.WindowCalls != 0 || orch.TurnAgents != 8 {
		t.Errorf("orchestrator limits with the window off = %+v", orch)
	}
	writeFile(t, dir, "agentry.yaml", "limits:\n  window_calls: 100\n  turn_agents: 3\n")
	if cfg, err = loadWith(t, nil); err != nil {
		t.Fatal(err)
	}
	plain, orch = cfg.Limits.runtime()
	for _, l := range []orchestrator.Limits{plain, orch} {
		if l.WindowCalls != 100 || l.Window != 5*time.Minute || l.TurnAgents != 3 {
			t.Errorf("limits = %+v, want the keys set for every run", l)
		}
	}
	if plain.TurnToolCalls != 0 || orch.TurnToolCalls != 30 {
		t.Errorf("an unset key: plain %d, orchestrator %d; want 0 and 30", plain.TurnToolCalls, orch.TurnToolCalls)
	}
	writeFile(t, dir, "agentry.yaml", "limits:\n  turn_agents: -1\n")
	if _, err := loadWith(t, nil); err == nil || !strings.Contains(err.Error(), "limits.turn_agents must not be negative") {
		t.Fatalf("err = %v", err)
	}
	writeFile(t, dir, "agentry.yaml", "limits:\n  window: soon\n")
	if _, err := loadWith(t, nil); err == nil || !strings.Contains(err.Error(), "window") {
		t.Fatalf("err = %v, want one naming limits.window", err)
	}
}
