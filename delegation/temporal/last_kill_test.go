package temporal_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"go.temporal.io/sdk/activity"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/a2a"
	"github.com/agentry/agentry/delegation/a2a/a2atest"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	"github.com/agentry/agentry/delegation/tool"
	flow "github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// A Remote activity whose worker is killed on the last attempt its retry
// policy allows leaves no process to end the delegation: the server times
// the attempt out and the workflow hears that no retry follows. The
// workflow then cancels the remote task the attempt's last heartbeat
// named and ends the delegation's span error, worker lost on the last
// attempt. Without that the task ran on at the remote agent and the span
// stayed running. The kill is in-process: the last attempt's worker
// heartbeats only when told to (never, here), and its Send neither
// returns nor hears its context until the test ends, as on a worker that
// is gone.
func TestAKilledLastAttemptCancelsTheRemoteTask(t *testing.T) {
	card, f, x, ref, k := killRemote(t, "remote-killed", "lead is done", true)
	got, err := x.Wait(t.Context())
	if err != nil || got.Status != trace.StatusOK || got.Result != "lead is done" {
		t.Fatalf("run = %+v, %v", got, err)
	}
	if k.killed.Load() != 1 {
		t.Fatalf("the last attempt's Send ran %d times on the killed worker; want once", k.killed.Load())
	}
	sp, call := remoteSpans(t, f, x.RunID())
	state := a2atest.TaskState(t, card, ref.TaskID)
	t.Logf("remote span %s %q, delegate call span %s %q, remote task %s", sp.Status, sp.Error, call.Status, call.Error, state)
	const lost = "worker lost on the last attempt, so the remote task is cancelled, not left to a retry"
	switch {
	case sp.Attributes[semconv.AttrA2ATaskID] != ref.TaskID:
		t.Errorf("remote span = %+v; want it of task %s", sp, ref.TaskID)
	case sp.Status != trace.StatusError || !strings.Contains(sp.Error, lost):
		t.Errorf("remote span = %+v; want it ended error, %q", sp, lost)
	case state != sdk.TaskStateCanceled:
		t.Errorf("remote task %s is %s; want canceled", ref.TaskID, state)
	case call.Status != trace.StatusError || !strings.Contains(call.Error, lost):
		t.Errorf("delegate call span = %+v; want it ended error, %q", call, lost)
	}
}

// A Remote activity whose worker is killed while its run is cancelled
// leaves no process to end the delegation either: the cancel never
// reaches the attempt, the server times it out (a cancelled activity is
// not retried) and the workflow hears the timeout under its cancel. The
// workflow then cancels the remote task the attempt's last heartbeat
// named and ends the remote span cancelled, as the attempt would have on
// hearing the cancel. Without that the span stayed running and the task
// ran on at the remote agent.
func TestAWorkerKilledAsTheRunIsCancelledCancelsTheRemoteTask(t *testing.T) {
	card, f, x, ref, k := killRemote(t, "remote-killed-cancelled", "never", false)
	until(t, "the killed worker follows the task", func() bool { return k.killed.Load() == 1 })
	if err := x.Cancel(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, err := x.Wait(t.Context()); err != nil || got.Status != trace.StatusCancelled {
		t.Fatalf("run = %+v, %v; want cancelled", got, err)
	}
	sp, call := remoteSpans(t, f, x.RunID())
	state := a2atest.TaskState(t, card, ref.TaskID)
	t.Logf("remote span %s %q, delegate call span %s %q, remote task %s", sp.Status, sp.Error, call.Status, call.Error, state)
	const lost = "run cancelled, so the remote task is cancelled; its worker was lost: the server timed out the attempt"
	switch {
	case sp.Attributes[semconv.AttrA2ATaskID] != ref.TaskID:
		t.Errorf("remote span = %+v; want it of task %s", sp, ref.TaskID)
	case sp.Status != trace.StatusCancelled || !strings.Contains(sp.Error, lost):
		t.Errorf("remote span = %+v; want it ended cancelled, %q", sp, lost)
	case state != sdk.TaskStateCanceled:
		t.Errorf("remote task %s is %s; want canceled", ref.TaskID, state)
	case call.Status != trace.StatusCancelled:
		t.Errorf("delegate call span = %+v; want it ended cancelled", call)
	}
}

// A Remote activity whose worker is killed as its invocation's timeout
// fires never hears the stop either: the server times the attempt out
// under it, and the workflow cancels the remote task the attempt's last
// heartbeat named and ends the remote span timeout, with the agent's
// words, as the attempt would have on hearing its timeout; the delegate
// call and the run end timeout too, not error or running. The attempt is
// the first and only one: its worker sends the task for real, then
// neither returns nor hears its context (it heartbeats until the stop
// reaches it, so only the stop ends it).
func TestAWorkerKilledAsItsInvocationTimesOutCancelsTheRemoteTask(t *testing.T) {
	agent := a2atest.Start(t, true)
	remote, problems := a2a.Resolve(context.Background(), []a2a.Agent{{Card: agent.URL, ID: "echo"}}, nil)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	k := &killable{Remote: remote[0].Remote, dead: make(chan struct{}), sends: true}
	k.kills.Store(1) // the first Send is the killed worker's
	remote[0].Remote = k
	f := newFixture(t, "hasty:\n  - calls: [{tool: delegate, args: {agent: echo, task: hold}}]\n  - say: never\n",
		leadWithRemotes(t, remote))
	w := serveActivities(t, temporaltest.Start(t, remoteNamespace), "remote-killed-timed-out",
		&temporal.Activities{Steps: f.rt.Steps(), Flush: f.rec.Flush, Beat: 200 * time.Millisecond})
	t.Cleanup(func() { close(k.dead) }) // before the worker stops: it waits for its activity
	x, err := w.eng.Start(t.Context(), delegation.Request{Agent: "hasty", Task: "go"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := x.Wait(t.Context())
	if err != nil || got.Status != trace.StatusTimeout {
		t.Fatalf("run = %+v, %v; want timeout", got, err)
	}
	if k.killed.Load() != 1 {
		t.Fatalf("the killed worker's Send ran %d times; want once", k.killed.Load())
	}
	sp, call := remoteSpans(t, f, x.RunID())
	id, _ := sp.Attributes[semconv.AttrA2ATaskID].(string)
	state := sdk.TaskState("")
	if id != "" {
		state = a2atest.TaskState(t, agent.Card, id)
	}
	t.Logf("remote span %s %q, delegate call span %s %q, remote task %s", sp.Status, sp.Error, call.Status, call.Error, state)
	const lost = "agent timed out: hasty after 3s, so the remote task is cancelled; its worker was lost: the server timed out the attempt"
	switch {
	case sp.Status != trace.StatusTimeout || !strings.Contains(sp.Error, lost):
		t.Errorf("remote span = %+v; want it ended timeout, %q", sp, lost)
	case id == "":
		t.Errorf("remote span = %+v; want it to name its task", sp)
	case state != sdk.TaskStateCanceled:
		t.Errorf("remote task %s is %s; want canceled", id, state)
	case call.Status != trace.StatusTimeout:
		t.Errorf("delegate call span = %+v; want it ended timeout", call)
	}
}

// killRemote starts lead's delegation to a remote echo agent on queue
// (lead then says done), lets the Remote activity's first attempt name the
// remote task, stops that worker (the attempt hands the task over) and
// serves the run on a worker that never heartbeats, whose Send runs as on
// a killed worker (killable). last makes that attempt the last the
// activity's retry policy allows. It returns the agent's card.
func killRemote(t *testing.T, queue, done string, last bool) (*sdk.AgentCard, *fixture, *temporal.Execution, delegation.RemoteRef, *killable) {
	t.Helper()
	agent := a2atest.Start(t, true)
	remote, problems := a2a.Resolve(context.Background(), []a2a.Agent{{Card: agent.URL, ID: "echo"}}, nil)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	k := &killable{Remote: remote[0].Remote, dead: make(chan struct{})}
	remote[0].Remote = k
	f := newFixture(t, "lead:\n  - calls: [{tool: delegate, args: {agent: echo, task: hold}}]\n  - say: "+done+"\n",
		leadWithRemotes(t, remote))
	addr := temporaltest.Start(t, remoteNamespace)
	w1, x, c, ref := startRemoteRun(t, addr, f, queue)
	if last {
		allowAttempts(t, c, x.RunID(), "Remote", 2)
	}
	k.kills.Store(1) // the next Send is the killed worker's
	w1.stop()        // the first attempt hands the task over
	serveActivities(t, addr, queue, &temporal.Activities{Steps: f.rt.Steps(), Flush: f.rec.Flush, Beat: time.Hour})
	t.Cleanup(func() { close(k.dead) }) // before the worker stops: it waits for its activity
	return agent.Card, f, x, ref, k
}

// remoteSpans is the run's remote invoke_agent span and delegate call span.
func remoteSpans(t *testing.T, f *fixture, runID string) (remote, call trace.Span) {
	t.Helper()
	for _, s := range f.spans(t, runID) {
		switch s.Name {
		case "invoke_agent echo":
			remote = s
		case "execute_tool delegate":
			call = s
		}
	}
	return remote, call
}

// killable is a remote agent whose Send, once armed (kills), runs as on a
// killed worker: it neither returns nor hears its context until dead is
// closed, then leaves the task as it found it. With sends, the killed
// Send first sends its task for real (in the background, deaf to its
// context), so the remote names it and the attempt's heartbeats carry it.
type killable struct {
	delegation.Remote
	kills, killed atomic.Int32
	dead          chan struct{}
	sends         bool
}

func (k *killable) Send(ctx context.Context, t delegation.RemoteTask) delegation.RemoteOutcome {
	if k.kills.CompareAndSwap(1, 0) {
		k.killed.Add(1)
		if k.sends { // its states reach no span: a killed worker writes none
			bg := t
			bg.Status = nil
			go k.Remote.Send(context.WithoutCancel(ctx), bg)
		}
		<-k.dead
		return delegation.RemoteOutcome{HandedOver: true}
	}
	return k.Remote.Send(ctx, t)
}

// A YAML workflow run whose PlayWorkflow activity's worker is killed on
// the last attempt its retry policy allows leaves no process to end the
// run: the server times the attempt out, and the workflow plays the run
// once more on a context that ends it, so the agents it waits on are
// cancelled and the run is recorded error, worker lost on the last
// attempt. Without that the run stayed running in the store. The kill is
// in-process: the last attempt's worker heartbeats only when told to
// (never, here), and that attempt's first flush of the trace neither
// returns nor hears its context until the test ends, so it records
// nothing more.
func TestAKilledLastAttemptEndsTheWorkflowRun(t *testing.T) {
	f, x, _, serveAfter := killPlay(t, killedPlay{queue: "flow-killed", last: true})
	serveAfter()
	got, err := x.Wait(t.Context())
	const lost = "worker lost on the last attempt, so its agents are cancelled, not left to a retry"
	if err != nil || got.Result.Status != flow.StatusError || !strings.Contains(got.Result.Error, lost) {
		t.Fatalf("run = %+v, %v; want it ended error, %q", got.Result, err, lost)
	}
	endedFlow(t, f, x.RunID(), trace.StatusError, lost, lost)
}

// endedFlow checks that the record of holdFlow's run ended with status,
// saying words, as did its workflow's span, that its step's span ended
// so saying step, and that the step's agent was cancelled.
func endedFlow(t *testing.T, f *fixture, runID string, status trace.Status, words, step string) {
	t.Helper()
	var run trace.Run
	until(t, "the run's record ended", func() bool {
		run, _ = f.store.Run(t.Context(), runID)
		return run.Status != trace.StatusRunning
	})
	if run.Status != status || !strings.Contains(run.Error, words) {
		t.Errorf("run record = %+v; want it ended %s, %q", run, status, words)
	}
	// The agent's remote span is left unchecked: the killed worker's
	// Remote attempt, alive in this process, may still write it through
	// the shared recorder, which a killed worker would not.
	for _, sp := range f.spans(t, runID) {
		switch {
		case sp.Name == "invoke_agent lead" && sp.Status != trace.StatusCancelled,
			sp.Name == "invoke_workflow hold" && (sp.Status != status || !strings.Contains(sp.Error, words)),
			sp.Name == "step a" && (sp.Status != status || !strings.Contains(sp.Error, step)):
			t.Errorf("span %s = %s %q; want the agent cancelled, the workflow and its step ended %s", sp.Name, sp.Status, sp.Error, status)
		}
	}
}

// killPlay starts a run of p's workflow on p.queue, lets its step's lead
// hold on a remote task (and p.ready say the rest holds), stops the
// worker of the PlayWorkflow activity's first attempt (it leaves the run
// to the second) and serves the run on a worker that never heartbeats,
// whose attempt's first flush of the trace neither returns nor hears its
// context until the test ends, as on a killed worker, as do the
// p.kills-1 PlayWorkflow attempts that worker takes next. p.last makes
// that attempt the last the activity's retry policy allows. It returns
// once that attempt runs, with the frozen flush and a function that
// starts the worker left after the kill.
func killPlay(t *testing.T, p killedPlay) (*fixture, *temporal.FlowExecution, *frozen, func()) {
	t.Helper()
	agent := a2atest.Start(t, true)
	f := newFixture(t, "lead:\n  - calls: [{tool: delegate, args: {agent: echo, task: hold}}]\n  - say: lead is done\n",
		append([]func(*delegation.Config){leadWithRemoteEcho(t, agent.URL)}, p.opts...)...)
	addr := temporaltest.Start(t, remoteNamespace)
	serve := func(flush func(context.Context) error, beat time.Duration) served {
		return serveActivities(t, addr, p.queue, &temporal.Activities{Steps: f.rt.Steps(), Flush: flush, Beat: beat})
	}
	w1 := serve(f.rec.Flush, 0)
	src := cmp.Or(p.flow, holdFlow)
	x, err := w1.eng.StartWorkflow(t.Context(), "hold.yaml", []byte(src), nil, "script", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	until(t, "the remote got the task", func() bool { return agent.Calls("message/stream") == 1 })
	if p.ready != nil {
		p.ready(addr, x.RunID())
	}
	if p.last {
		allowAttempts(t, dialRemote(t, addr), x.RunID(), "PlayWorkflow", 2)
	}
	z := &frozen{flush: f.rec.Flush, took: make(chan struct{}, max(p.kills, 1)), dead: make(chan struct{})}
	z.kills.Store(max(p.kills, 1))
	w1.stop() // the first attempt leaves the run to the second
	serve(z.Flush, time.Hour)
	t.Cleanup(func() { close(z.dead) }) // before the worker stops: it waits for its activity
	z.taken(t, "the second attempt")
	return f, x, z, func() { serve(f.rec.Flush, 0) }
}

// killedPlay is a run killPlay plays and kills: on queue, its workflow
// (holdFlow when empty) with more of the fixture's config (opts); ready
// waits until its agents hold (given the server's address and the run).
// last and kills say which PlayWorkflow attempts are killed (kills 0 is
// 1).
type killedPlay struct {
	queue string
	last  bool
	kills int32
	flow  string
	opts  []func(*delegation.Config)
	ready func(addr, runID string)
}

// frozen is a trace flush whose first call from a PlayWorkflow attempt,
// for the first kills attempts, runs as on a killed worker: it neither
// returns nor hears its context until dead is closed (took says it
// began).
type frozen struct {
	flush      func(context.Context) error
	kills      atomic.Int32
	took, dead chan struct{}
}

func (z *frozen) Flush(ctx context.Context) error {
	if activity.IsActivity(ctx) && activity.GetInfo(ctx).ActivityType.Name == "PlayWorkflow" && z.kills.Add(-1) >= 0 {
		z.took <- struct{}{}
		<-z.dead
		return errors.New("killed")
	}
	return z.flush(ctx)
}

// taken waits until the next frozen attempt (what) began.
func (z *frozen) taken(t *testing.T, what string) {
	t.Helper()
	select {
	case <-z.took:
	case <-time.After(time.Minute):
		t.Fatalf("%s did not run within a minute", what)
	}
}

// A Turn or Tool activity whose worker is killed on the last attempt its
// retry policy allows leaves its call's span as that attempt stored it,
// running, with no process to end it: the server times the attempt out
// and the workflow hears that no retry follows. The workflow then ends
// that span error, worker lost on the last attempt, without making the
// call again. Without that the span stayed running for good. The kill is
// in-process: the last attempt's worker heartbeats only when told to
// (never, here), and its call neither returns nor hears its context
// until the test ends, as on a worker that is gone.
func TestAKilledLastAttemptEndsTheCall(t *testing.T) {
	addr := temporaltest.Start(t, remoteNamespace)
	t.Run("model call", func(t *testing.T) {
		calls := newFreezing()
		f := frozenModelFixture(t, calls)
		x := killLastCall(t, addr, f, "killed-turn", "leaf", "Turn", calls)
		got, err := x.Wait(t.Context())
		const lost = "worker lost on the last attempt, so the model call ends, not left to a retry"
		if err != nil || got.Status != trace.StatusError || !strings.Contains(got.Error, lost) {
			t.Errorf("run = %+v, %v; want it ended error, %q", got, err, lost)
		}
		lostCall(t, f, x.RunID(), trace.KindChat, lost, calls)
	})
	t.Run("tool call", func(t *testing.T) {
		calls := newFreezing()
		f := frozenToolFixture(t, calls)
		x := killLastCall(t, addr, f, "killed-tool", "tooly", "Tool", calls)
		if got, err := x.Wait(t.Context()); err != nil || got.Status != trace.StatusOK || got.Result != "read" {
			t.Errorf("run = %+v, %v; want ok, the model reading the tool's error", got, err)
		}
		lostCall(t, f, x.RunID(), trace.KindExecuteTool, "worker lost on the last attempt, so the tool call ends, not left to a retry", calls)
	})
}

// killLastCall starts agent's run on a worker of f on queue, allows its
// activity act two attempts once the first holds its call, stops that
// worker (the call is left to the second attempt) and serves the run on
// a worker that never heartbeats, whose call freezes: the killed worker.
func killLastCall(t *testing.T, addr string, f *fixture, queue, agent, act string, calls *freezing) *temporal.Execution {
	t.Helper()
	w1 := serveRemote(t, addr, f, queue)
	x, err := w1.eng.Start(t.Context(), delegation.Request{Agent: agent, Task: "go"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	untilHeld(t, calls.held)
	allowAttempts(t, dialRemote(t, addr), x.RunID(), act, 2)
	w1.stop() // the first attempt leaves the call to the second
	serveActivities(t, addr, queue, &temporal.Activities{Steps: f.rt.Steps(), Flush: f.rec.Flush, Beat: time.Hour})
	t.Cleanup(func() { close(calls.dead) }) // before the worker stops: it waits for its activity
	untilHeld(t, calls.held)
	return x
}

// lostCall checks the run's one call span of kind ended error, saying
// lost, and that the call was made twice: the lost one was not made again.
func lostCall(t *testing.T, f *fixture, runID string, kind trace.Kind, lost string, calls *freezing) {
	t.Helper()
	sp := ofKind(f.spans(t, runID), kind)
	if len(sp) != 1 || sp[0].Status != trace.StatusError || !strings.Contains(sp[0].Error, lost) {
		t.Errorf("%s spans = %+v; want one, ended error, %q", kind, sp, lost)
	}
	if n := calls.n.Load(); n != 2 {
		t.Errorf("the call was made %d times; want 2 (the stopped attempt's, the killed one's)", n)
	}
}

// freezing is the calls of a test's model or tool: the first holds until
// its context ends (its worker stops), the second runs as on a killed
// worker: it neither returns nor hears its context until dead is closed.
// Both say on held that they began. A third would answer.
type freezing struct {
	n          atomic.Int32
	held, dead chan struct{}
}

func newFreezing() *freezing {
	return &freezing{held: make(chan struct{}, 2), dead: make(chan struct{})}
}

// call runs one call under ctx; it says whether the call answers.
func (z *freezing) call(ctx context.Context) error {
	switch z.n.Add(1) {
	case 1:
		z.held <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	case 2:
		z.held <- struct{}{}
		<-z.dead
		return errors.New("killed")
	}
	return nil
}

// frozenModelFixture is a fixture whose model calls are calls'.
func frozenModelFixture(t *testing.T, calls *freezing) *fixture {
	return newFixture(t, "", func(c *delegation.Config) {
		c.Models = model.Providers{"script": func(string) (model.LLM, error) { return frozenModel{calls}, nil }}
	})
}

// frozenToolFixture is a fixture whose agent tooly reads a file once,
// its file reads calls'.
func frozenToolFixture(t *testing.T, calls *freezing) *fixture {
	return newFixture(t, "tooly:\n  - calls: [{tool: filesystem.read_file, args: {path: note.txt}}]\n  - say: read\n",
		func(c *delegation.Config) {
			for i, tl := range c.Tools {
				if tl.Spec().Name == "filesystem.read_file" {
					c.Tools[i] = frozenTool{Tool: tl, calls: calls}
				}
			}
		})
}

type frozenModel struct{ calls *freezing }

func (m frozenModel) Name() string { return "script" }

func (m frozenModel) Generate(ctx context.Context, _ *model.Request) (*model.Response, error) {
	if err := m.calls.call(ctx); err != nil {
		return nil, err
	}
	return &model.Response{Text: "the answer", InputTokens: 10, OutputTokens: 5}, nil
}

type frozenTool struct {
	tool.Tool
	calls *freezing
}

func (z frozenTool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	if err := z.calls.call(ctx); err != nil {
		return "", err
	}
	return z.Tool.Call(ctx, args)
}
