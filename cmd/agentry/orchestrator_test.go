package main

import (
	"strings"
	"testing"
	"time"
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

func TestLimitsDefaultToTheDocumentsFiguresAndZeroTurnsOneOff(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	cfg, err := loadWith(t, []string{"AGENTRY_LIMITS__WINDOW_CALLS=0"})
	if err != nil {
		t.Fatal(err)
	}
	l := cfg.Limits.runtime()
	if l.ToolTimeout != 30*time.Second || l.DispatchToolCalls != 5 || l.TurnAgents != 8 || l.TurnToolCalls != 30 ||
		l.Window != 5*time.Minute || l.BreakerFailures != 5 || l.WindowCalls != 0 {
		t.Errorf("limits = %+v, want the defaults with the window off", l)
	}
	writeFile(t, dir, "agentry.yaml", "limits:\n  turn_agents: -1\n")
	if _, err := loadWith(t, nil); err == nil || !strings.Contains(err.Error(), "limits.turn_agents must not be negative") {
		t.Fatalf("err = %v", err)
	}
}
