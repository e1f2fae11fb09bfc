package temporal_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
	"github.com/agentry/agentry/trace/sqlite"
)

// e2eScript: coord hands three leaves a task at once; each leaf reads a
// file and answers. Latencies make the run last a few seconds, so the test
// can kill the worker between completed calls.
const e2eScript = `coord:
  - calls:
      - {tool: delegate, args: {agent: leaf, task: one}}
      - {tool: delegate, args: {agent: leaf, task: two}}
      - {tool: delegate, args: {agent: leaf, task: three}}
  - {say: all three answered, latency: 300ms}
leaf:
  - {calls: [{tool: filesystem.read_file, args: {path: note.txt}}], latency: 800ms}
  - {say: leaf done, latency: 2s}
`

// TestAKilledWorkerLosesNoCompletedStep runs a real `agentry run` against
// a real Temporal server, SIGKILLs the worker when some model and tool
// calls have completed, starts another worker, and checks that the run ends
// ok with every agent invoked once and every completed call recorded once
// and not made again.
func TestAKilledWorkerLosesNoCompletedStep(t *testing.T) {
	addr := temporaltest.Start(t, "agentry-e2e")
	bin := buildAgentry(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agents/coord.md": "---\nname: coord\ndescription: Leads.\nsubagents: {allow: [leaf]}\n---\nLead.\n",
		"agents/leaf.md":  "---\nname: leaf\ndescription: Answers.\ntools: [filesystem.read_file]\n---\nAnswer.\n",
		"script.yaml":     e2eScript,
		"quick.yaml":      "coord:\n  - calls: [{tool: delegate, args: {agent: leaf, task: one}}, {tool: delegate, args: {agent: nobody, task: two}}]\n  - say: done\nleaf: [{say: fine}]\n",
		"work/note.txt":   "the note",
		"agentry.yaml": fmt.Sprintf("agents: agents\ndb: traces.db\nworkspace: work\nengine: temporal\n"+
			"temporal: {address: %q, namespace: agentry-e2e, task_queue: e2e}\n", addr),
	})
	w1 := startWorker(t, bin, dir)
	run := exec.Command(bin, "run", "--json", "--model", "script:script.yaml", "coord", "go")
	run.Dir = dir
	var out, errb strings.Builder
	run.Stdout, run.Stderr = &out, &errb
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	runID, before := waitForCompletedLeafCalls(t, filepath.Join(dir, "traces.db"), 3)
	waitForReported(t, addr, "agentry-e2e", runID, before)
	killed := time.Now()
	if err := w1.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = w1.Wait()
	startWorker(t, bin, dir)
	if err := waitFor(run, 2*time.Minute); err != nil {
		t.Fatalf("agentry run: %v\nstdout: %s\nstderr: %s", err, out.String(), errb.String())
	}
	t.Logf("run ended %v after the worker was killed", time.Since(killed).Round(time.Millisecond))
	var res delegation.Result
	if err := json.Unmarshal([]byte(out.String()), &res); err != nil || res.Status != trace.StatusOK || res.RunID != runID {
		t.Fatalf("result = %+v (%v), want ok for run %s; stderr: %s", res, err, runID, errb.String())
	}
	spans := readSpans(t, filepath.Join(dir, "traces.db"), runID)
	invoked, chats, tools := map[string]int{}, map[string]int{}, map[string]int{}
	for _, sp := range spans {
		if sp.Status != trace.StatusOK {
			t.Errorf("span %s %q of %s ended %s: %s", sp.ID, sp.Name, sp.Agent, sp.Status, sp.Error)
		}
		switch {
		case sp.Kind == trace.KindInvokeAgent:
			invoked[sp.Agent]++
		case sp.Kind == trace.KindChat:
			chats[sp.ParentID]++
		case sp.Kind == trace.KindExecuteTool && sp.Attributes[semconv.AttrToolName] != delegation.DelegateTool:
			tools[sp.ParentID]++
			if want := fmt.Sprintf("%s/%s/%v", runID, sp.ParentID, sp.Attributes[semconv.AttrToolCallID]); sp.Attributes[delegation.AttrIdempotencyKey] != want {
				t.Errorf("tool span %s has idempotency key %v, want %s", sp.ID, sp.Attributes[delegation.AttrIdempotencyKey], want)
			}
		}
	}
	if invoked["coord"] != 1 || invoked["leaf"] != 3 {
		t.Errorf("invocations = %v, want coord once and leaf three times", invoked)
	}
	for _, sp := range spans {
		if sp.Kind == trace.KindInvokeAgent && (chats[sp.ID] != 2 || (sp.Agent == "leaf" && tools[sp.ID] != 1)) {
			t.Errorf("%s (%s) has %d model calls and %d tool calls recorded, want 2 and %d", sp.Agent, sp.ID, chats[sp.ID], tools[sp.ID], map[bool]int{true: 1}[sp.Agent == "leaf"])
		}
	}
	// A call completed before the kill is the same record afterwards: the
	// new worker did not make it again.
	after := map[string]trace.Span{}
	for _, sp := range spans {
		after[sp.ID] = sp
	}
	for _, sp := range before {
		if a := after[sp.ID]; !a.EndedAt.Equal(sp.EndedAt) {
			t.Errorf("%s of %s completed at %v before the kill, and again at %v after", sp.Name, sp.Agent, sp.EndedAt, a.EndedAt)
		}
	}
	var resumed time.Time
	for _, sp := range spans {
		if sp.StartedAt.After(killed) && (resumed.IsZero() || sp.StartedAt.Before(resumed)) {
			resumed = sp.StartedAt
		}
	}
	t.Logf("recovery: the new worker started its first step %v after the kill", resumed.Sub(killed).Round(time.Millisecond))
	checkHistories(t, addr, "agentry-e2e", runID)
	t.Run("progress and result read as in-process", func(t *testing.T) {
		onTemporal, code := runCLI(t, bin, dir)
		inProcess, inCode := runCLI(t, bin, dir, "AGENTRY_ENGINE=inprocess")
		if code != 0 || inCode != 0 || onTemporal != inProcess {
			t.Errorf("on Temporal (exit %d):\n%s\nin-process (exit %d):\n%s", code, onTemporal, inCode, inProcess)
		}
	})
}

// runCLI runs `agentry run coord go` (not --json) and returns its output
// with times and the run ID masked and lines sorted (parallel branches
// print in any order), and its exit code.
func runCLI(t *testing.T, bin, dir string, env ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, "run", "--model", "script:quick.yaml", "coord", "go")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	masked := regexp.MustCompile(` in [0-9.]+(µs|ms|s)`).ReplaceAllString(string(out), " in T")
	masked = regexp.MustCompile(`run [0-9a-f]{32}`).ReplaceAllString(masked, "run ID")
	lines := strings.Split(strings.Trim(masked, "\n"), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n"), code
}

// waitForCompletedLeafCalls polls the trace until n leaf model calls have
// completed and returns the run and its completed chat and tool spans.
func waitForCompletedLeafCalls(t *testing.T, db string, n int) (string, []trace.Span) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		store, err := sqlite.Open(db)
		if err != nil {
			continue
		}
		page, err := store.Runs(context.Background(), trace.RunFilter{Limit: 1})
		if err != nil || len(page.Runs) == 0 {
			store.Close()
			continue
		}
		runID := page.Runs[0].ID
		spans, _ := store.Spans(context.Background(), runID)
		store.Close()
		var done []trace.Span
		leafCalls := 0
		for _, sp := range spans {
			if (sp.Kind == trace.KindChat || sp.Kind == trace.KindExecuteTool) && sp.Status == trace.StatusOK {
				done = append(done, sp)
				if sp.Kind == trace.KindChat && sp.Agent == "leaf" {
					leafCalls++
				}
			}
		}
		if leafCalls >= n {
			return runID, done
		}
	}
	t.Fatalf("no %d completed leaf model calls within 90 s", n)
	return "", nil
}

// waitForReported waits until Temporal records as completed the activity
// of every call in spans (a Turn per model call, a Tool per tool call, a
// Finish per delegation): a call's span is stored just before its activity
// reports done, and a worker killed in between rightly makes it again.
func waitForReported(t *testing.T, addr, namespace, runID string, spans []trace.Span) {
	t.Helper()
	want := map[string]int{}
	for _, sp := range spans {
		switch {
		case sp.Kind == trace.KindChat:
			want["Turn"]++
		case sp.Kind == trace.KindExecuteTool && sp.Attributes[semconv.AttrToolName] == delegation.DelegateTool:
			want["Finish"]++
		case sp.Kind == trace.KindExecuteTool:
			want["Tool"]++
		}
	}
	c, err := client.Dial(client.Options{HostPort: addr, Namespace: namespace})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var got map[string]int
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got, err = completedActivities(c, runID); err == nil && covers(got, want) {
			return
		}
	}
	t.Fatalf("completed activities %v (%v), want at least %v", got, err, want)
}

func covers(got, want map[string]int) bool {
	for k, n := range want {
		if got[k] < n {
			return false
		}
	}
	return true
}

// checkHistories replays every workflow of the run against this code: a
// change that makes the workflows non-deterministic fails here.
func checkHistories(t *testing.T, addr, namespace, runID string) {
	t.Helper()
	checkHistoriesN(t, addr, namespace, runID, 4)
}

// checkHistoriesN replays the run's workflows and expects want of them.
func checkHistoriesN(t *testing.T, addr, namespace, runID string, want int) {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: addr, Namespace: namespace})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, err := replayAll(c, runID)
	if err != nil {
		t.Fatal(err)
	}
	if n != want {
		t.Errorf("replayed %d workflow histories, want %d", n, want)
	}
}

func buildAgentry(t *testing.T) string {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(here), "..", "..")
	bin := filepath.Join(t.TempDir(), "agentry")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/agentry")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// startWorker starts `agentry worker` in dir and waits for it to serve.
func startWorker(t *testing.T, bin, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "worker")
	cmd.Dir = dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "agentry worker: serving") {
				ready <- true
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatalf("worker exited: %s", errb.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("worker not serving after 60 s: %s", errb.String())
	}
	return cmd
}

func waitFor(cmd *exec.Cmd, within time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(within):
		_ = cmd.Process.Kill()
		return fmt.Errorf("still running after %s", within)
	}
}

func readSpans(t *testing.T, db, runID string) []trace.Span {
	t.Helper()
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	spans, err := store.Spans(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	return spans
}
