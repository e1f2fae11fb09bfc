package temporal_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/client"

	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/sqlite"
)

// spendKillScript is spendYAML's script with the second agent slow enough
// to kill its worker while it works.
const spendKillScript = `b1: [{say: one, tokens: {input: 60, output: 40}}]
b2: [{say: two, latency: 3s, tokens: {input: 60, output: 40}}]
b3: [{say: three, tokens: {input: 60, output: 40}}]
`

// TestAKilledWorkerKeepsTheTokensAWorkflowRunSpent SIGKILLs the worker of
// a YAML workflow run under delegation.token_budget once the first agent
// has spent its tokens, while the second works, and starts another. The
// run's PlayWorkflow is played again from the top on the new worker, and
// what the first agent spent before the kill still counts: the second
// agent's tokens spend the budget (200 of 150), so the third step does not
// start and the run ends error with the in-process words, as without the
// kill (the engine cases' row "delegation.token_budget counts a
// workflow's agents"). Had the replay counted from zero, the third agent
// would have run.
func TestAKilledWorkerKeepsTheTokensAWorkflowRunSpent(t *testing.T) {
	const ns = "agentry-flowbudget"
	addr := temporaltest.Start(t, ns)
	bin := buildAgentry(t)
	dir := flowSite(t, addr, ns, map[string]string{
		"workflows/spend.yaml": spendYAML, "workflows/scripts/spend.script.yaml": spendKillScript})
	cfg := filepath.Join(dir, "agentry.yaml")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"agentry.yaml": string(b) + "delegation: {token_budget: 150}\n"})
	w1 := startWorker(t, bin, dir)
	cmd := exec.Command(bin, "workflow", "run", "spend", "--input", "topic=tokens", "--model", "script:workflows/scripts/spend.script.yaml")
	cmd.Dir = dir
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "traces.db")
	runID, before := waitForAnswers(t, db, 1)
	waitForReported(t, addr, ns, runID, before)
	if err := w1.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = w1.Wait()
	startWorker(t, bin, dir)
	var exit *exec.ExitError
	if err := waitFor(cmd, 2*time.Minute); !errors.As(err, &exit) {
		t.Fatalf("workflow run: %v, want it to fail\nstdout: %s\nstderr: %s", err, out.String(), errb.String())
	}
	const over = "token budget exceeded: 200 tokens used of 150"
	if !strings.Contains(out.String(), "- three: "+over) || !strings.Contains(out.String(), "step three                cancelled") {
		t.Errorf("workflow run's report does not say step three was stopped, %q:\nstdout: %s\nstderr: %s", over, out.String(), errb.String())
	}
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	run, err := store.Run(t.Context(), runID)
	if err != nil || run.Status != trace.StatusError || run.Error != over || run.InputTokens+run.OutputTokens != 200 {
		t.Errorf("run record = %+v (%v); want error, %q, 200 tokens", run, err, over)
	}
	invoked := map[string]int{}
	for _, sp := range readSpans(t, db, runID) {
		if sp.Kind == trace.KindInvokeAgent {
			invoked[sp.Agent]++
		}
	}
	if invoked["b1"] != 1 || invoked["b2"] != 1 || invoked["b3"] != 0 {
		t.Errorf("agents invoked %v; want b1 and b2 once, b3 never", invoked)
	}
	if n := playAttempts(t, addr, ns, runID); n < 2 {
		t.Errorf("PlayWorkflow ran %d attempts; want the killed one and its retry", n)
	}
}

// playAttempts is the attempt of the run's PlayWorkflow activity that
// completed, as its history says.
func playAttempts(t *testing.T, addr, ns, runID string) int32 {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: addr, Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h, _, err := history(c, &commonpb.WorkflowExecution{WorkflowId: runID})
	if err != nil {
		t.Fatal(err)
	}
	var n int32
	for _, ev := range h.Events {
		if a := ev.GetActivityTaskStartedEventAttributes(); a != nil {
			n = max(n, a.GetAttempt())
		}
	}
	return n
}
