package temporal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/semconv"
	"github.com/agentry/agentry/trace/sqlite"
)

// TestAnApprovalOnTemporalSurvivesAKilledWorker: a real `agentry run` on a
// real Temporal server asks for approval; the worker is SIGKILLed while the
// call waits, another worker starts, and `agentry approvals approve` from
// another process answers. The run ends ok, the call ran once, and its span
// carries the request and the decision. Then `agentry run --deny-asks` on
// Temporal denies from the submitting process.
func TestAnApprovalOnTemporalSurvivesAKilledWorker(t *testing.T) {
	addr := temporaltest.Start(t, "agentry-approve")
	bin := buildAgentry(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agents/asker.md": "---\nname: asker\ndescription: Reads, with approval.\ntools: {allow: [filesystem.read_file], ask: [filesystem.read_file]}\n---\nRead.\n",
		"script.yaml":     "asker:\n  - calls: [{tool: filesystem.read_file, args: {path: note.txt}}]\n  - say: done\n",
		"work/note.txt":   "the note",
		"agentry.yaml": fmt.Sprintf("agents: agents\ndb: traces.db\nworkspace: work\nengine: temporal\napproval_timeout: 5m\n"+
			"temporal: {address: %q, namespace: agentry-approve, task_queue: approve}\n", addr),
	})
	db := filepath.Join(dir, "traces.db")
	w1 := startWorker(t, bin, dir)
	run := exec.Command(bin, "run", "--json", "--model", "script:script.yaml", "asker", "read it")
	run.Dir = dir
	var out, errb strings.Builder
	run.Stdout, run.Stderr = &out, &errb
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	pending := waitForApproval(t, db, approval.Pending)
	if err := w1.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = w1.Wait()
	startWorker(t, bin, dir)
	answered := time.Now()
	approve := exec.Command(bin, "approvals", "approve", pending.ID)
	approve.Dir = dir
	if b, err := approve.CombinedOutput(); err != nil || !strings.Contains(string(b), "approved "+pending.ID) {
		t.Fatalf("agentry approvals approve: %v\n%s", err, b)
	}
	if err := waitFor(run, 2*time.Minute); err != nil {
		t.Fatalf("agentry run: %v\nstdout: %s\nstderr: %s", err, out.String(), errb.String())
	}
	var res delegation.Result
	if err := json.Unmarshal([]byte(out.String()), &res); err != nil || res.Status != trace.StatusOK || res.Result != "done" || res.RunID != pending.RunID {
		t.Fatalf("result = %+v (%v); stderr: %s", res, err, errb.String())
	}
	var tools []trace.Span
	for _, sp := range readSpans(t, db, res.RunID) {
		if sp.Kind == trace.KindExecuteTool {
			tools = append(tools, sp)
		}
	}
	if len(tools) != 1 || tools[0].Status != trace.StatusOK || tools[0].ID != pending.SpanID || tools[0].Attributes[semconv.AttrToolResult] != "the note" {
		t.Fatalf("tool spans = %+v, want the approved call, run once", tools)
	}
	t.Logf("approval round trip: `agentry approvals approve` started → the call ended %v later (a worker killed while it waited)",
		tools[0].EndedAt.Sub(answered).Round(time.Millisecond))
	if ev := events(tools[0]); !strings.HasPrefix(strings.Join(ev, " "), "approval_requested:: approval:approved:cli") || len(ev) != 2 {
		t.Errorf("events = %v, want the request and the CLI's approval", ev)
	}
	checkHistoriesN(t, addr, "agentry-approve", res.RunID, 2)

	// Round trips with a worker that stays up: answered by `agentry
	// approvals approve` (which signals), and in the store alone (as a
	// serve that knows nothing of Temporal answers: read at the next poll).
	for _, signal := range []bool{true, false} {
		run := exec.Command(bin, "run", "--json", "--model", "script:script.yaml", "asker", "read it")
		run.Dir = dir
		if err := run.Start(); err != nil {
			t.Fatal(err)
		}
		pending := waitForApproval(t, db, approval.Pending)
		answered := time.Now()
		if signal {
			approve := exec.Command(bin, "approvals", "approve", pending.ID)
			approve.Dir = dir
			if b, err := approve.CombinedOutput(); err != nil {
				t.Fatalf("agentry approvals approve: %v\n%s", err, b)
			}
		} else {
			store, err := sqlite.Open(db)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := store.DecideApproval(context.Background(), pending.ID, approval.Answer{Approve: true, By: "web", At: time.Now()}); err != nil {
				t.Fatal(err)
			}
			store.Close()
		}
		if err := waitFor(run, time.Minute); err != nil {
			t.Fatal(err)
		}
		var ended time.Time
		for _, sp := range readSpans(t, db, pending.RunID) {
			if sp.ID == pending.SpanID && sp.Status == trace.StatusOK {
				ended = sp.EndedAt
			}
		}
		if ended.IsZero() {
			t.Fatalf("signal=%v: the approved call did not end ok", signal)
		}
		t.Logf("approval round trip (signal=%v): answer given → the call ended %v later", signal, ended.Sub(answered).Round(time.Millisecond))
		if !signal && ended.Sub(answered) > temporal.MaxApprovalPoll+2*time.Second {
			t.Errorf("an answer without a signal took %v, more than a poll (%v)", ended.Sub(answered), temporal.MaxApprovalPoll)
		}
	}

	t.Run("--deny-asks on Temporal", func(t *testing.T) {
		cmd := exec.Command(bin, "run", "--json", "--deny-asks", "--model", "script:script.yaml", "asker", "read it")
		cmd.Dir = dir
		b, err := cmd.Output()
		var res delegation.Result
		if jerr := json.Unmarshal(b, &res); err != nil || jerr != nil || res.Status != trace.StatusOK {
			t.Fatalf("run --deny-asks: %v %v %s", err, jerr, b)
		}
		store, err := sqlite.Open(db)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		list, err := store.Approvals(context.Background(), approval.Filter{RunID: res.RunID})
		if err != nil || len(list) != 1 || list[0].Status != approval.Denied || list[0].DecidedBy != "--deny-asks" {
			t.Fatalf("approvals = %+v, %v; want one denied by --deny-asks", list, err)
		}
	})
}

// waitForApproval polls the trace store until an approval has status st.
func waitForApproval(t *testing.T, db string, st approval.Status) approval.Approval {
	t.Helper()
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		store, err := sqlite.Open(db)
		if err != nil {
			continue
		}
		list, err := store.Approvals(context.Background(), approval.Filter{Status: st})
		store.Close()
		if err == nil && len(list) > 0 {
			return list[0]
		}
	}
	t.Fatalf("no %s approval within 90 s", st)
	return approval.Approval{}
}
