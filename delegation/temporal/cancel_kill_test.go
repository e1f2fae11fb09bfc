package temporal_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	flow "github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/trace"
)

// A Turn or Tool activity whose worker is killed while its invocation
// stops (the run cancelled, the agent's timeout) leaves its call's span
// with no process to end it: the cancel never reaches the attempt, the
// server times it out (a cancelled activity is not retried) and the
// workflow hears the timeout under its cancel. The workflow then ends
// that span as the attempt would have on hearing the cancel (cancelled,
// or timeout), saying its worker was lost, without making the call
// again, on a span that starts when the call began (its heartbeats said
// when). Without that the span stayed running for good. The kill is
// in-process: the worker's call neither returns nor hears its context
// until the test ends, as on a worker that is gone, and its heartbeats
// stop once the stop has reached the activity's context.
func TestAWorkerKilledAsItsInvocationStopsEndsTheCall(t *testing.T) {
	addr := temporaltest.Start(t, remoteNamespace)
	t.Run("model call", func(t *testing.T) {
		calls := newFreezing()
		f := frozenModelFixture(t, calls)
		x, began := killCallAsStopped(t, addr, f, "killed-cancelled-turn", "leaf", calls)
		stoppedCall(t, f, x, began, trace.KindChat, trace.StatusCancelled, "run cancelled, so the model call ends; its worker was lost: the server timed out the attempt", calls)
	})
	// The agent's timeout stops its invocation as a cancel does: the call
	// ends timeout, with the agent's words.
	t.Run("agent's timeout", func(t *testing.T) {
		calls := newFreezing()
		f := frozenModelFixture(t, calls)
		x, began := killCallAsStopped(t, addr, f, "killed-timed-out-turn", "slow", calls)
		stoppedCall(t, f, x, began, trace.KindChat, trace.StatusTimeout, "agent timed out: slow after 1s, so the model call ends; its worker was lost: the server timed out the attempt", calls)
	})
	t.Run("tool call", func(t *testing.T) {
		calls := newFreezing()
		f := frozenToolFixture(t, calls)
		x, began := killCallAsStopped(t, addr, f, "killed-cancelled-tool", "tooly", calls)
		stoppedCall(t, f, x, began, trace.KindExecuteTool, trace.StatusCancelled, "run cancelled, so the tool call ends; its worker was lost: the server timed out the attempt", calls)
	})
}

// killCallAsStopped starts agent's run on a worker of f on queue whose
// first call (calls) freezes as on a killed worker, and cancels the run
// once the call holds, unless the agent has a timeout, which stops it.
// It returns the run and when the call had begun by.
func killCallAsStopped(t *testing.T, addr string, f *fixture, queue, agent string, calls *freezing) (*temporal.Execution, time.Time) {
	t.Helper()
	calls.n.Store(1) // the first call is the killed worker's
	w := serveActivities(t, addr, queue, &temporal.Activities{Steps: f.rt.Steps(), Flush: f.rec.Flush, Beat: 200 * time.Millisecond})
	t.Cleanup(func() { close(calls.dead) }) // before the worker stops: it waits for its activity
	x, err := w.eng.Start(t.Context(), delegation.Request{Agent: agent, Task: "go"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	untilHeld(t, calls.held)
	began := time.Now()
	time.Sleep(500 * time.Millisecond) // a heartbeat says when the call began
	if agent == "slow" {
		return x, began
	}
	if err := x.Cancel(t.Context()); err != nil {
		t.Fatal(err)
	}
	return x, began
}

// stoppedCall checks that the run ended with status and its one call
// span of kind ended so, saying lost, started when the call had begun by
// (began), and that the killed call was not made again.
func stoppedCall(t *testing.T, f *fixture, x *temporal.Execution, began time.Time, kind trace.Kind, status trace.Status, lost string, calls *freezing) {
	t.Helper()
	if got, err := x.Wait(t.Context()); err != nil || got.Status != status {
		t.Fatalf("run = %+v, %v; want %s", got, err, status)
	}
	sp := ofKind(f.spans(t, x.RunID()), kind)
	for _, s := range sp {
		t.Logf("%s span %s %q", kind, s.Status, s.Error)
	}
	if len(sp) != 1 || sp[0].Status != status || !strings.Contains(sp[0].Error, lost) {
		t.Errorf("%s spans = %+v; want one, ended %s, %q", kind, sp, status, lost)
	} else if sp[0].StartedAt.After(began) {
		t.Errorf("%s span started %s, after the call had begun (by %s)", kind, sp[0].StartedAt, began)
	}
	if n := calls.n.Load(); n != 2 { // the count started at 1
		t.Errorf("the call was made %d times; want once", n-1)
	}
}

// A YAML workflow run whose PlayWorkflow activity's worker is killed as
// the run is cancelled leaves no process to end the run: the cancel never
// reaches the attempt, and the server times it out (a cancelled activity
// is not retried). The workflow then plays the run once more on a context
// that ends it, so the agents it waits on are cancelled and the run is
// recorded cancelled, saying its worker was lost. Without that the run
// stayed running in the store and its agent went on. The kill is
// in-process (killPlay).
func TestAWorkerKilledAsTheWorkflowRunIsCancelledEndsTheRun(t *testing.T) {
	f, x, _, serveAfter := killPlay(t, killedPlay{queue: "flow-killed-cancelled"})
	if err := x.Cancel(t.Context()); err != nil {
		t.Fatal(err)
	}
	serveAfter()
	got, err := x.Wait(t.Context())
	const lost = "run cancelled, so its agents are cancelled; its worker was lost: the server timed out the attempt"
	if err != nil || got.Result.Status != flow.StatusCancelled || !strings.Contains(got.Result.Error, lost) {
		t.Errorf("run = %+v, %v; want it ended cancelled, %q", got.Result, err, lost)
	}
	endedFlow(t, f, x.RunID(), trace.StatusCancelled, lost, "run cancelled")
}

// The workflow's extra PlayWorkflow, which plays a run whose last attempt
// was lost only to end it, is an activity of its own, retried as any:
// killed too (its worker the only one, so it takes it), it is played
// again on the next worker, which ends the run.
func TestAKilledExtraPlayOfTheWorkflowRunIsRetried(t *testing.T) {
	f, x, z, serveAfter := killPlay(t, killedPlay{queue: "flow-killed-twice", last: true, kills: 2})
	z.taken(t, "the extra play")
	serveAfter()
	got, err := x.Wait(t.Context())
	const lost = "worker lost on the last attempt, so its agents are cancelled, not left to a retry"
	if err != nil || got.Result.Status != flow.StatusError || !strings.Contains(got.Result.Error, lost) {
		t.Errorf("run = %+v, %v; want it ended error, %q", got.Result, err, lost)
	}
	endedFlow(t, f, x.RunID(), trace.StatusError, lost, lost)
}

// A YAML workflow run played only to end it (its last PlayWorkflow
// attempt lost with its worker) stops once it meets an agent going or
// not started, but the lost attempt may have started agents that play
// has not reached by then: here the second attempt of step b's agent,
// behind the engine's 10 s backoff after its first failed, while step
// a's agent is cancelled at once. Every agent of the run still going
// is cancelled before the run is recorded, reached or not. Without that
// b's second agent went on, its span running.
func TestAWorkflowRunPlayedToEndItCancelsTheAgentsItDidNotReach(t *testing.T) {
	flaky := &failThenHold{held: make(chan struct{}, 8)}
	opt := func(c *delegation.Config) {
		llm := c.Models["script"]
		c.Models["script"] = func(name string) (model.LLM, error) {
			m, err := llm(name)
			return failingFlaky{LLM: m, flaky: flaky}, err
		}
	}
	var c client.Client
	f, x, _, serveAfter := killPlay(t, killedPlay{queue: "flow-killed-unreached", last: true, flow: retryFlow,
		opts: []func(*delegation.Config){opt}, ready: func(addr, runID string) {
			untilHeld(t, flaky.held)
			c = dialRemote(t, addr)
			until(t, "the attempt's heartbeat names both agents going", func() bool { return len(playBeat(t, c, runID)) == 2 })
		}})
	serveAfter()
	got, err := x.Wait(t.Context())
	const lost = "worker lost on the last attempt, so its agents are cancelled, not left to a retry"
	if err != nil || got.Result.Status != flow.StatusError || !strings.Contains(got.Result.Error, lost) {
		t.Errorf("run = %+v, %v; want it ended error, %q", got.Result, err, lost)
	}
	var flakies []trace.Span
	for _, sp := range f.spans(t, x.RunID()) {
		if sp.Kind == trace.KindInvokeAgent && sp.Agent == "flaky" {
			flakies = append(flakies, sp)
		}
	}
	for _, sp := range flakies {
		t.Logf("span %s %s %q", sp.Name, sp.Status, sp.Error)
	}
	if len(flakies) != 2 || flakies[0].Status == trace.StatusRunning || flakies[1].Status == trace.StatusRunning {
		t.Errorf("flaky's spans = %+v; want two, ended", flakies)
	}
	// The play that ended the run was given the agents the lost attempt
	// knew going, so it cancels them even when the server cannot list
	// them (cancelGoing): step a's lead and b's second flaky.
	var agents []string
	for _, id := range endingPlay(t, c, x.RunID()).Going {
		agents = append(agents, invokedAgent(t, c, id))
	}
	if slices.Sort(agents); !slices.Equal(agents, []string{"flaky", "lead"}) {
		t.Errorf("the ending play was given the invocations of %v as going; want flaky's and lead's", agents)
	}
}

// playBeat is what the run's pending PlayWorkflow activity last
// heartbeated as going.
func playBeat(t *testing.T, c client.Client, runID string) []string {
	t.Helper()
	d, err := c.DescribeWorkflowExecution(t.Context(), runID, "")
	if err != nil {
		t.Fatal(err)
	}
	var b struct{ Going []string }
	for _, a := range d.GetPendingActivities() {
		if a.GetActivityType().GetName() == "PlayWorkflow" && a.GetHeartbeatDetails() != nil {
			_ = converter.GetDefaultDataConverter().FromPayloads(a.GetHeartbeatDetails(), &b)
		}
	}
	return b.Going
}

// endingPlay is the input of the run's last PlayWorkflow activity.
func endingPlay(t *testing.T, c client.Client, runID string) temporal.WorkflowRunInput {
	t.Helper()
	h, _, err := history(c, &commonpb.WorkflowExecution{WorkflowId: runID})
	if err != nil {
		t.Fatal(err)
	}
	var in temporal.WorkflowRunInput
	for _, ev := range h.Events {
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == "PlayWorkflow" {
			if err := converter.GetDefaultDataConverter().FromPayloads(a.GetInput(), &in); err != nil {
				t.Fatal(err)
			}
		}
	}
	return in
}

// invokedAgent is the agent the invocation workflow id ran.
func invokedAgent(t *testing.T, c client.Client, id string) string {
	t.Helper()
	h, _, err := history(c, &commonpb.WorkflowExecution{WorkflowId: id})
	if err != nil {
		t.Fatal(err)
	}
	var f delegation.Frame
	if err := converter.GetDefaultDataConverter().FromPayloads(h.Events[0].GetWorkflowExecutionStartedEventAttributes().GetInput(), &f); err != nil {
		t.Fatal(err)
	}
	return f.Branch[len(f.Branch)-1]
}

// retryFlow is holdFlow with a second step, whose agent fails its first
// attempt and is tried again after 10 s (failThenHold).
const retryFlow = `workflow: {name: hold, description: One step whose agent holds on a remote task, one that retries}
agents:
  flaky:
    role: Fails, then holds
    prompt: go
    retry: {max_attempts: 2, backoff: linear}
steps:
  - {id: a, agent: lead, input: go}
  - {id: b, agent: flaky, input: go}
`

// failThenHold is agent flaky's model calls: the first fails, the rest
// hold until their context ends, saying so on held.
type failThenHold struct {
	n    atomic.Int32
	held chan struct{}
}

// failingFlaky is a model that answers agent flaky's calls as its
// failThenHold says, and the other agents' as LLM does.
type failingFlaky struct {
	model.LLM
	flaky *failThenHold
}

func (m failingFlaky) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	if req.Agent != "flaky" {
		return m.LLM.Generate(ctx, req)
	}
	if m.flaky.n.Add(1) == 1 {
		return nil, errors.New("flaky fails its first attempt")
	}
	m.flaky.held <- struct{}{}
	<-ctx.Done()
	return nil, ctx.Err()
}
