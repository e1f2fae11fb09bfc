package temporal_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/semconv"
)

// askerScript reads the note twice (each read asks), then answers.
const askerScript = `asker:
  - calls: [{tool: filesystem.read_file, args: {path: note.txt}}]
  - calls: [{tool: filesystem.read_file, args: {path: note.txt}}]
  - say: done
`

func approvalTimeout(d time.Duration) func(*delegation.Config) {
	return func(c *delegation.Config) { c.ApprovalTimeout = d }
}

// answerAt answers the run's first pending approval at workflow time d, in
// the store and, when signal is set, by the approval workflow's signal.
func answerAt(t *testing.T, f *fixture, d time.Duration, ans approval.Answer, signal bool) func(*testsuite.TestWorkflowEnvironment) {
	return func(env *testsuite.TestWorkflowEnvironment) {
		env.RegisterDelayedCallback(func() {
			list, err := f.store.Approvals(context.Background(), approval.Filter{Status: approval.Pending})
			if err != nil || len(list) == 0 {
				t.Errorf("no pending approval at %s: %v", d, err)
				return
			}
			a, err := f.store.DecideApproval(context.Background(), list[0].ID, ans)
			if err != nil {
				t.Error(err)
			}
			if signal {
				env.SignalWorkflowByID(temporal.ApprovalWorkflowID(a.RunID, a.ID), temporal.ApprovalSignal, a.ID)
			}
		}, d)
	}
}

// toolSpans are the run's read_file spans, in start order.
func toolSpans(t *testing.T, f *fixture, runID string) []trace.Span {
	t.Helper()
	spans := f.spans(t, runID)
	var out []trace.Span
	for _, sp := range spans {
		if sp.Kind == trace.KindExecuteTool {
			out = append(out, sp)
		}
	}
	return out
}

func events(sp trace.Span) []string {
	var out []string
	for _, e := range sp.Events {
		if strings.HasPrefix(e.Name, "approval") {
			out = append(out, e.Name+":"+asString(e.Attributes[semconv.EventAttrVerdict])+":"+asString(e.Attributes[semconv.EventAttrDecidedBy]))
		}
	}
	return out
}

func asString(v any) string { s, _ := v.(string); return s }

// An approval for this run, answered while the approval workflow waits,
// lets the call run and covers the second call without a second request;
// the span carries the request and the decision, as in-process.
func TestAnApprovalOnTemporalIsADurableWaitAnsweredInTheStore(t *testing.T) {
	f := newFixture(t, askerScript, approvalTimeout(time.Hour))
	store := f.store
	var answeredAt time.Duration
	var env0 *testsuite.TestWorkflowEnvironment
	start := time.Time{}
	got := f.runTemporal(t, delegation.Request{Agent: "asker", Task: "read"},
		answerAt(t, f, 90*time.Second, approval.Answer{Approve: true, ForRun: true, By: "cli:ann", Note: "fine", At: time.Now()}, true),
		func(env *testsuite.TestWorkflowEnvironment) {
			env0, start = env, env.Now()
			env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
				if info.ActivityType.Name == "AnsweredTool" && answeredAt == 0 {
					answeredAt = env0.Now().Sub(start)
				}
			})
		})
	if got.Status != trace.StatusOK || got.Result != "done" {
		t.Fatalf("run = %+v, want ok", got)
	}
	// The answer came at 90 s, between two reads 5 s apart: the signal, not
	// the poll, ended the wait.
	if answeredAt < 90*time.Second || answeredAt >= 91*time.Second {
		t.Errorf("the call ran at %s of workflow time, want right after the answer at 90s", answeredAt)
	}
	list, _ := store.Approvals(context.Background(), approval.Filter{RunID: got.RunID})
	if len(list) != 1 || list[0].Status != approval.Approved || !list[0].ForRun {
		t.Fatalf("approvals = %+v, want one approved for the run", list)
	}
	sps := toolSpans(t, f, got.RunID)
	if len(sps) != 2 {
		t.Fatalf("%d tool spans, want 2", len(sps))
	}
	if ev := strings.Join(events(sps[0]), " "); ev != "approval_requested:: approval:approved:cli:ann" || sps[0].Status != trace.StatusOK || sps[0].ID != list[0].SpanID {
		t.Errorf("first call: %s %s (span %s, approval's %s)", sps[0].Status, ev, sps[0].ID, list[0].SpanID)
	}
	if ev := strings.Join(events(sps[1]), " "); ev != "approval:approved:cli:ann" || sps[1].Status != trace.StatusOK {
		t.Errorf("second call: %s %s, want approved earlier for the run", sps[1].Status, ev)
	}
}

// An answer given without a signal (a process with no Temporal client) is
// read at the approval workflow's next poll; a denial reaches the model
// with its reason and ends the span denied.
func TestADenialWithoutASignalIsReadAtTheNextPoll(t *testing.T) {
	f := newFixture(t, "asker:\n  - calls: [{tool: filesystem.read_file, args: {path: note.txt}}]\n  - say: gave up\n", approvalTimeout(time.Hour))
	var answeredAt time.Duration
	got := f.runTemporal(t, delegation.Request{Agent: "asker", Task: "read"},
		answerAt(t, f, 90*time.Second, approval.Answer{By: "web", Note: "not today", At: time.Now()}, false),
		func(env *testsuite.TestWorkflowEnvironment) {
			start := env.Now()
			env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
				if info.ActivityType.Name == "AnsweredTool" {
					answeredAt = env.Now().Sub(start)
				}
			})
		})
	if got.Status != trace.StatusOK || got.Result != "gave up" {
		t.Fatalf("run = %+v, want ok", got)
	}
	if answeredAt <= 90*time.Second || answeredAt > 96*time.Second {
		t.Errorf("the denial was read at %s of workflow time, want within a 5 s poll after 90s", answeredAt)
	}
	sps := toolSpans(t, f, got.RunID)
	if len(sps) != 1 || sps[0].Status != trace.StatusDenied || !strings.Contains(asString(sps[0].Attributes[semconv.AttrToolResult]), "denied by web: not today") {
		t.Fatalf("tool spans = %+v, want one denied with the reason", sps)
	}
	if ev := strings.Join(events(sps[0]), " "); ev != "approval_requested:: approval:denied:web" {
		t.Errorf("events = %s", ev)
	}
	if len(f.keys.keys) != 0 {
		t.Errorf("the denied tool ran %d times", len(f.keys.keys))
	}
}

// No answer within approval_timeout (a workflow timer) denies the call with
// that reason, in the store and on the span.
func TestAnUnansweredApprovalTimesOutOnAWorkflowTimer(t *testing.T) {
	f := newFixture(t, "asker:\n  - calls: [{tool: filesystem.read_file, args: {path: note.txt}}]\n  - say: gave up\n", approvalTimeout(3*time.Minute))
	got := f.runTemporal(t, delegation.Request{Agent: "asker", Task: "read"})
	if got.Status != trace.StatusOK {
		t.Fatalf("run = %+v, want ok", got)
	}
	list, _ := f.store.Approvals(context.Background(), approval.Filter{RunID: got.RunID})
	if len(list) != 1 || list[0].Status != approval.Denied || list[0].DecidedBy != "timeout" || !strings.Contains(list[0].Note, "3m0s") {
		t.Fatalf("approvals = %+v, want one denied by the timeout", list)
	}
	sps := toolSpans(t, f, got.RunID)
	if len(sps) != 1 || sps[0].Status != trace.StatusDenied {
		t.Fatalf("tool spans = %+v", sps)
	}
	var errAttr any
	for _, e := range sps[0].Events {
		if e.Name == semconv.EventApproval {
			errAttr = e.Attributes[semconv.EventAttrError]
		}
	}
	if errAttr != "approval timed out" {
		t.Errorf("decision event error = %v, want approval timed out", errAttr)
	}
}

// Cancelling the run while a call waits denies its row (nobody can answer
// it any more) and ends its span cancelled: nothing is left pending or
// running.
func TestCancellingARunWhileItWaitsForApprovalDeniesTheRow(t *testing.T) {
	f := newFixture(t, askerScript, approvalTimeout(time.Hour))
	got := f.runTemporal(t, delegation.Request{Agent: "asker", Task: "read"}, func(env *testsuite.TestWorkflowEnvironment) {
		env.RegisterDelayedCallback(env.CancelWorkflow, 30*time.Second)
	})
	if got.Status != trace.StatusCancelled {
		t.Fatalf("run = %+v, want cancelled", got)
	}
	list, _ := f.store.Approvals(context.Background(), approval.Filter{RunID: got.RunID})
	if len(list) != 1 || list[0].Status != approval.Denied || list[0].DecidedBy != "agentry" {
		t.Fatalf("approvals = %+v, want one denied by agentry", list)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if sps := toolSpans(t, f, got.RunID); len(sps) == 1 && sps[0].Status.IsFinal() {
			break
		}
	}
	if sps := toolSpans(t, f, got.RunID); len(sps) != 1 || sps[0].Status != trace.StatusCancelled {
		t.Fatalf("tool spans = %+v, want one cancelled", sps)
	}
	if len(f.keys.keys) != 0 {
		t.Errorf("the tool ran %d times", len(f.keys.keys))
	}
}

// A delegation whose target is ask waits as a tool call does: approved, the
// child runs; denied, it never starts and the parent reads the denial. The
// delegation's span carries the request and the decision either way.
func TestADelegationThatAsksWaitsForItsApprovalOnTemporal(t *testing.T) {
	const gateScript = "gate:\n  - calls: [{tool: delegate, args: {agent: leaf, task: check}}]\n  - say: over\nleaf:\n  - say: checked\n"
	for _, approve := range []bool{true, false} {
		f := newFixture(t, gateScript, approvalTimeout(time.Hour))
		got := f.runTemporal(t, delegation.Request{Agent: "gate", Task: "go"},
			answerAt(t, f, 20*time.Second, approval.Answer{Approve: approve, By: "web", Note: "decided", At: time.Now()}, true))
		if got.Status != trace.StatusOK || got.Result != "over" {
			t.Fatalf("approve=%v: run = %+v", approve, got)
		}
		sps := toolSpans(t, f, got.RunID)
		if len(sps) != 1 || sps[0].Attributes[semconv.AttrToolName] != delegation.DelegateTool {
			t.Fatalf("approve=%v: tool spans = %+v", approve, sps)
		}
		verdict, status := "approved", trace.StatusOK
		if !approve {
			verdict, status = "denied", trace.StatusDenied
		}
		if ev := strings.Join(events(sps[0]), " "); ev != "approval_requested:: approval:"+verdict+":web" || sps[0].Status != status {
			t.Errorf("approve=%v: delegation %s with %s", approve, sps[0].Status, ev)
		}
		spans, _ := f.store.Spans(t.Context(), got.RunID)
		leaves := 0
		for _, sp := range spans {
			if sp.Kind == trace.KindInvokeAgent && sp.Agent == "leaf" {
				leaves++
			}
		}
		if want := map[bool]int{true: 1}[approve]; leaves != want {
			t.Errorf("approve=%v: leaf invoked %d times, want %d", approve, leaves, want)
		}
	}
}
