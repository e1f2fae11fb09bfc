package temporal_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/sqlite"
)

// flowSite is a folder with the repository's shipped workflows (and their
// scripts and inputs), an empty agents folder and a config that puts runs
// on the Temporal server at addr.
func flowSite(t *testing.T, addr, namespace string, extra map[string]string) string {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	shipped := filepath.Join(filepath.Dir(here), "..", "..", "workflows")
	dir := t.TempDir()
	files := map[string]string{
		"agents/.keep": "",
		"agentry.yaml": fmt.Sprintf("agents: agents\ndb: traces.db\nworkspace: work\nworkflows: workflows\nengine: temporal\n"+
			"temporal: {address: %q, namespace: %s, task_queue: %s}\n", addr, namespace, namespace),
	}
	for _, pattern := range []string{"*.yaml", "scripts/*"} {
		paths, _ := filepath.Glob(filepath.Join(shipped, pattern))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(shipped, p)
			files["workflows/"+rel] = string(b)
		}
	}
	for k, v := range extra {
		files[k] = v
	}
	writeFiles(t, dir, files)
	os.MkdirAll(filepath.Join(dir, "work"), 0o755)
	return dir
}

// checkWorkflowRunOnTemporal checks that run id has a workflow on the
// server, and that its history and its invocations' replay against the
// current code; it returns how many workflows the run had.
func checkWorkflowRunOnTemporal(t *testing.T, addr, namespace, id string) int {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: addr, Namespace: namespace})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.DescribeWorkflowExecution(t.Context(), id, ""); err != nil {
		t.Errorf("run %s has no workflow on Temporal: %v", id, err)
	}
	n, err := replayAll(c, id)
	if err != nil {
		t.Error(err)
	}
	return n
}

// flowScript and flowYAML: a workflow of three steps, the second two
// agents in parallel, with latencies that let the test kill the worker
// after some agents have answered.
const (
	flowYAML = `workflow: {name: durable, description: Survives a killed worker}
agents:
  first: {prompt: "Start on {{inputs.topic}}"}
  left: {prompt: "Left side of {{steps.open.output}}"}
  right: {prompt: "Right side of {{steps.open.output}}"}
  last: {prompt: "Join {{steps.both.output}}"}
inputs:
  - {name: topic, type: string, required: true}
steps:
  - {id: open, agent: first}
  - id: both
    type: parallel
    parallel:
      - {agent: left, output_key: left}
      - {agent: right, output_key: right}
  - {id: close, agent: last}
`
	flowScript = `first: [{say: opened, latency: 800ms}]
left: [{say: left done, latency: 600ms}]
right: [{say: right done, latency: 2500ms}]
last: [{say: all joined, latency: 1500ms}]
`
)

// TestAKilledWorkerRepeatsNoCompletedWorkflowStep SIGKILLs the worker of
// a workflow run once two agents have answered, starts another, and checks
// that the run ends ok with every agent invoked once and every model call
// that completed before the kill kept as it was.
func TestAKilledWorkerRepeatsNoCompletedWorkflowStep(t *testing.T) {
	addr := temporaltest.Start(t, "agentry-flowkill")
	bin := buildAgentry(t)
	dir := flowSite(t, addr, "agentry-flowkill", map[string]string{
		"workflows/durable.yaml": flowYAML, "workflows/scripts/durable.script.yaml": flowScript,
		"workflows/scripts/durable.inputs.json": `{"topic": "durability"}`})
	w1 := startWorker(t, bin, dir)
	cmd := exec.Command(bin, "workflow", "run", "durable", "--inputs", "workflows/scripts/durable.inputs.json",
		"--model", "script:workflows/scripts/durable.script.yaml")
	cmd.Dir = dir
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			_ = cmd.Process.Kill()
			t.Logf("workflow run stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
		}
	})
	db := filepath.Join(dir, "traces.db")
	runID, before := waitForAnswers(t, db, 2)
	waitForReported(t, addr, "agentry-flowkill", runID, before)
	killed := time.Now()
	if err := w1.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = w1.Wait()
	startWorker(t, bin, dir)
	if err := waitFor(cmd, 2*time.Minute); err != nil {
		t.Fatalf("workflow run: %v\nstdout: %s\nstderr: %s", err, out.String(), errb.String())
	}
	t.Logf("run ended %v after the worker was killed", time.Since(killed).Round(time.Millisecond))
	if !strings.Contains(out.String(), "run "+runID+": ok") {
		t.Fatalf("workflow run did not end ok:\n%s\nstderr: %s", out.String(), errb.String())
	}
	for _, step := range []string{"open", "both", "close"} {
		if n := strings.Count(out.String(), fmt.Sprintf("step %-20s ok\n", step)); n != 1 {
			t.Errorf("step %s printed ok %d times:\n%s", step, n, out.String())
		}
	}
	spans := readSpans(t, db, runID)
	invoked, chats, steps := map[string]int{}, map[string]int{}, map[string]int{}
	for _, sp := range spans {
		if sp.Status != trace.StatusOK {
			t.Errorf("span %q of %s ended %s: %s", sp.Name, sp.Agent, sp.Status, sp.Error)
		}
		switch sp.Kind {
		case trace.KindInvokeAgent:
			invoked[sp.Agent]++
		case trace.KindChat:
			chats[sp.ParentID]++
		case trace.KindWorkflowStep:
			steps[sp.Name]++
		}
	}
	for _, a := range []string{"first", "left", "right", "last"} {
		if invoked[a] != 1 {
			t.Errorf("%s invoked %d times, want once (all: %v)", a, invoked[a], invoked)
		}
	}
	for _, sp := range spans {
		if sp.Kind == trace.KindInvokeAgent && chats[sp.ID] != 1 {
			t.Errorf("%s has %d model calls recorded, want 1", sp.Agent, chats[sp.ID])
		}
	}
	if len(steps) != 3 || steps["step open"] != 1 || steps["step both"] != 1 || steps["step close"] != 1 {
		t.Errorf("step spans = %v, want each of the three once", steps)
	}
	after := map[string]trace.Span{}
	for _, sp := range spans {
		after[sp.ID] = sp
	}
	for _, sp := range before {
		if a := after[sp.ID]; !a.EndedAt.Equal(sp.EndedAt) {
			t.Errorf("%s of %s completed at %v before the kill, and again at %v after", sp.Name, sp.Agent, sp.EndedAt, a.EndedAt)
		}
	}
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	run, err := store.Run(t.Context(), runID)
	if err != nil || run.Status != trace.StatusOK || run.Agents != 4 || run.Result != "all joined" {
		t.Errorf("run record = %+v (%v), want ok, 4 agents, result \"all joined\"", run, err)
	}
	if n := checkWorkflowRunOnTemporal(t, addr, "agentry-flowkill", runID); n != 5 {
		t.Errorf("replayed %d workflows of the run, want 5 (the run and its four agents)", n)
	}
}

// waitForAnswers waits until n model calls of the newest run have
// completed and returns the run's ID and those calls.
func waitForAnswers(t *testing.T, db string, n int) (string, []trace.Span) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		store, err := sqlite.Open(db)
		if err != nil {
			continue
		}
		page, err := store.Runs(t.Context(), trace.RunFilter{Limit: 1})
		if err != nil || len(page.Runs) == 0 {
			store.Close()
			continue
		}
		runs := page.Runs
		spans, _ := store.Spans(t.Context(), runs[0].ID)
		store.Close()
		var done []trace.Span
		for _, sp := range spans {
			if sp.Kind == trace.KindChat && sp.Status == trace.StatusOK {
				done = append(done, sp)
			}
		}
		if len(done) >= n {
			return runs[0].ID, done
		}
	}
	t.Fatalf("%d model calls not completed within 60 s", n)
	return "", nil
}
