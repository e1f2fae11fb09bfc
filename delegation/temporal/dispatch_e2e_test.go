package temporal_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	"github.com/agentry/agentry/trace"
)

// TestTheOfficeOrchestratorRunsOnTheTemporalServer runs the shipped
// agents/office-orchestrator.md with the demo model through a real
// `agentry run` and `agentry worker` on a real Temporal server, and again
// in-process: the same result and the same spans (kind, name, agent,
// depth, status).
func TestTheOfficeOrchestratorRunsOnTheTemporalServer(t *testing.T) {
	addr := temporaltest.Start(t, "agentry-orch")
	bin := buildAgentry(t)
	_, here, _, _ := runtime.Caller(0)
	office, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "agents", "office-orchestrator.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agents/office-orchestrator.md": string(office),
		"work/tasks.md":                 "- [ ] quarterly report (due 2026-01-10, overdue)\n- [ ] invoices (due 2026-02-01, overdue)\n",
		"agentry.yaml": fmt.Sprintf("agents: agents\ndb: traces.db\nworkspace: work\nengine: temporal\n"+
			"temporal: {address: %q, namespace: agentry-orch, task_queue: orch}\n", addr),
	})
	startWorker(t, bin, dir)
	const task = "Send Bob the overdue tasks report and schedule a review meeting"
	run := func(env ...string) (delegation.Result, []string) {
		cmd := exec.Command(bin, "run", "--json", "--model", "demo", "office-orchestrator", task)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if err := waitFor(cmd, 2*time.Minute); err != nil {
			t.Fatalf("agentry run %v: %v\nstdout: %s\nstderr: %s", env, err, out.String(), errb.String())
		}
		var res delegation.Result
		if err := json.Unmarshal([]byte(out.String()), &res); err != nil {
			t.Fatalf("%v: %s", err, out.String())
		}
		var lines []string
		for _, sp := range readSpans(t, filepath.Join(dir, "traces.db"), res.RunID) {
			lines = append(lines, fmt.Sprintf("%s %q %s depth=%d %s", sp.Kind, sp.Name, sp.Agent, sp.Depth, sp.Status))
		}
		slices.Sort(lines)
		return res, lines
	}
	got, gotSpans := run()
	want, wantSpans := run("AGENTRY_ENGINE=inprocess")
	if got.Status != trace.StatusOK || !strings.Contains(got.Result, "coordinated 3 agents") {
		t.Fatalf("run on Temporal = %+v", got)
	}
	if got.Result != want.Result || got.Status != want.Status {
		t.Errorf("on Temporal: %+v\nin-process: %+v", got, want)
	}
	if strings.Join(gotSpans, "\n") != strings.Join(wantSpans, "\n") {
		t.Errorf("on Temporal:\n%s\n\nin-process:\n%s", strings.Join(gotSpans, "\n"), strings.Join(wantSpans, "\n"))
	}
	for _, name := range []string{"invoke_agent gather", "invoke_agent act", "invoke_agent follow_up", "execute_tool get_agent_results"} {
		if !strings.Contains(strings.Join(gotSpans, "\n"), fmt.Sprintf("%q", name)) {
			t.Errorf("no %s span on Temporal", name)
		}
	}
	checkHistories(t, addr, "agentry-orch", got.RunID)
}
