package temporal_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/sqlite"
)

// The reconciler ends the record of a durable run whose workflow Temporal
// closed without the run ending it: terminated (interrupted, with the
// reason) or past its execution timeout (timeout). Its open spans end and
// its pending approval is denied; a running workflow's run, a run Temporal
// does not know (another namespace's) and a run some process owns are left
// alone. No worker serves the queue, so nothing else writes.
func TestTheReconcilerEndsRunsWhoseWorkflowClosed(t *testing.T) {
	const ns = "agentry-reconcile"
	addr := temporaltest.Start(t, ns)
	ctx := t.Context()
	eng, err := temporal.Dial(ctx, temporal.Config{Address: addr, Namespace: ns, TaskQueue: "nobody"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	tc, err := client.Dial(client.Options{HostPort: addr, Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "traces.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()

	started := time.Now().UTC().Add(-2 * time.Minute)
	record := func(id string, durable bool) {
		t.Helper()
		run := trace.Run{ID: id, Agent: "coord", Task: "go", Status: trace.StatusRunning, StartedAt: started, Durable: durable}
		root := trace.Span{ID: id + "-root", RunID: id, Kind: trace.KindInvokeAgent, Name: "invoke_agent coord", Agent: "coord",
			Status: trace.StatusRunning, StartedAt: started}
		done := trace.Span{ID: id + "-chat", RunID: id, ParentID: root.ID, Kind: trace.KindChat, Name: "chat script", Agent: "coord",
			Status: trace.StatusOK, StartedAt: started, EndedAt: started.Add(time.Second)}
		if err := store.Apply(ctx, []trace.Run{run}, []trace.Span{root, done}); err != nil {
			t.Fatal(err)
		}
	}
	submit := func(id string, timeout time.Duration) {
		t.Helper()
		_, err := tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: "nobody", WorkflowExecutionTimeout: timeout}, temporal.RunWorkflowName)
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"terminated", "timedout", "going", "unknown"} {
		record(id, true)
	}
	record("owned", false)
	submit("terminated", 0)
	submit("timedout", time.Second)
	submit("going", 0)
	if err := store.RequestApproval(ctx, approval.Approval{ID: "ask-1", RunID: "terminated", SpanID: "terminated-root", Agent: "coord",
		Tool: "shell", Subject: "shell", Status: approval.Pending, RequestedAt: started}); err != nil {
		t.Fatal(err)
	}
	if err := tc.TerminateWorkflow(ctx, "terminated", "", "stuck, says ops"); err != nil {
		t.Fatal(err)
	}

	r := eng.NewReconciler(store)
	want := map[string]trace.Status{"terminated": trace.StatusInterrupted, "timedout": trace.StatusTimeout,
		"unknown": trace.StatusRunning, "going": trace.StatusRunning, "owned": trace.StatusRunning}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := r.Tick(ctx); err != nil {
			t.Fatalf("Tick: %v", err)
		}
		n := 0
		for id, st := range want {
			if run, _ := store.Run(ctx, id); run.Status == st {
				n++
			}
		}
		if n == len(want) {
			break
		}
		if time.Now().After(deadline) {
			for id := range want {
				run, _ := store.Run(ctx, id)
				t.Logf("%s: %s %q", id, run.Status, run.Error)
			}
			t.Fatal("runs not reconciled within 20 s")
		}
		time.Sleep(200 * time.Millisecond)
	}

	words := map[string][]string{"terminated": {"terminated", "stuck, says ops"}, "timedout": {"timed out"}}
	for id, ws := range words {
		run, _ := store.Run(ctx, id)
		for _, w := range ws {
			if !strings.Contains(run.Error, w) {
				t.Errorf("run %s's error %q does not say %q", id, run.Error, w)
			}
		}
		spans, _ := store.Spans(ctx, id)
		for _, sp := range spans {
			if sp.Kind == trace.KindInvokeAgent && (sp.Status != run.Status || sp.EndedAt.IsZero()) {
				t.Errorf("run %s's open span ended %s at %v; want %s", id, sp.Status, sp.EndedAt, run.Status)
			}
			if sp.Kind == trace.KindChat && sp.Status != trace.StatusOK {
				t.Errorf("run %s's finished span became %s", id, sp.Status)
			}
		}
	}
	if a, err := store.Approval(ctx, "ask-1"); err != nil || a.Status != approval.Denied {
		t.Errorf("the terminated run's approval is %s (%v); want denied", a.Status, err)
	}
	if n, err := r.Tick(ctx); err != nil || n != 0 {
		t.Errorf("a second pass ended %d runs (%v); want none", n, err)
	}
}
