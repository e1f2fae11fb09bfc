package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
	"github.com/agentry/agentry/trace/sqlite"
)

func TestHooksAndPricesFromTheConfigReachTheRun(t *testing.T) {
	dir, agents, db, _ := runFixture(t)
	sc := writeFile(t, dir, "priced.yaml", "coord:\n  - {calls: [{tool: delegate, args: {agent: leaf, task: sub}}], tokens: {input: 3, output: 1}}\n  - say: all done\n")
	log := filepath.Join(dir, "hooks.log")
	writeFile(t, dir, "claude/settings.json", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo stop >> `+log+`"}]}]}}`)
	writeFile(t, dir, "agentry.yaml", `
hooks:
  subagent_start:
    - {match: leaf, command: "echo 'leaf is resting' >&2; exit 2", timeout: 5s}
  SubagentStop:
    - hooks: [{type: command, command: "echo subagent_stop >> `+log+`"}]
  claude_settings: [`+filepath.Join(dir, "claude/settings.json")+`]
prices:
  "script:`+sc+`": {input: 1000000, output: 0}
`)
	s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
	code := s.main(context.Background(), []string{"run", "coord", "go", "--config", filepath.Join(dir, "agentry.yaml"),
		"--agents", agents, "--db", db, "--model", "script:" + sc, "--json"})
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	var res struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	spans, err := store.Spans(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var delegation trace.Span
	for _, sp := range spans {
		if sp.Name == "execute_tool delegate" {
			delegation = sp
		}
	}
	if delegation.Status != trace.StatusDenied || !strings.Contains(delegation.Error, "leaf is resting") {
		t.Errorf("delegation = %s %q", delegation.Status, delegation.Error)
	}
	if len(delegation.Events) == 0 || delegation.Events[0].Name != semconv.EventHook {
		t.Errorf("delegation events = %+v", delegation.Events)
	}
	// The blocked delegation never stopped, so only the run's end ran a hook.
	data, _ := os.ReadFile(log)
	if strings.TrimSpace(string(data)) != "stop" {
		t.Errorf("hook log = %q", data)
	}
	total, _ := trace.CostRollup(spans)
	if total != 3 {
		t.Errorf("run cost = %v, want 3 (3 input tokens at $1M per Mtok)", total)
	}
}
