package main

import (
	"strings"
	"testing"
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
