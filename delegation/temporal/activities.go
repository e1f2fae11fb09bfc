package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
)

// Activities are the side effects of a run: each is one delegation.Steps
// step, so the worker runs the in-process code for permissions, hooks,
// models, tools and spans. A model call and a tool call (Turn, Tool,
// AnsweredTool) are activities; the steps that only check and record are
// local activities, run by the worker that runs the workflow task, with
// nothing scheduled on the server. Registered on a worker as a struct, so
// their names are the method names.
type Activities struct {
	Steps *delegation.Steps
	// Flush writes the trace recorded so far; a step completes only after
	// its spans are stored, so a worker killed after a completed step
	// cannot lose that step's record. Nil flushes nothing.
	Flush func(context.Context) error
	// Beat is how often a long activity heartbeats (0 = every second), so
	// a killed worker's activities are retried elsewhere after the
	// heartbeat timeout.
	Beat time.Duration
}

// RootResult is what the Root step returns.
type RootResult struct {
	Frame delegation.Frame
	Ended *loop.Outcome
}

// TurnResult is one model call: the loop's event, and the call's priced
// cost (0: not priced), for the run's total and budget.
type TurnResult struct {
	Event   loop.Event
	CostUSD float64
}

// ToolResult is one tool call: what the model reads, and the skills the
// invocation has loaded once it is done (the engine keeps them in its
// Frame, so the next steps narrow its tools and read their folders).
type ToolResult struct {
	Text   string
	Skills []string `json:",omitempty"`
}

// UnmarshalJSON also reads the bare string a Tool activity returned
// before it reported skills, so a history recorded then replays the same.
func (r *ToolResult) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		*r = ToolResult{}
		return json.Unmarshal(b, &r.Text)
	}
	type plain ToolResult
	return json.Unmarshal(b, (*plain)(r))
}

// CheckResult is a delegate call checked: EvChecked and the delegation to
// carry on, or EvDone when it was refused.
type CheckResult struct {
	Delegation delegation.Delegation
	Event      loop.Event
}

// StartResult is a delegation started: its child (Delegation.Child), or
// how it ended at once (Ended), or the approval its target waits for.
type StartResult struct {
	Delegation delegation.Delegation
	Ended      *loop.Event
	Asked      *control.Asked
}

// DispatchedResult is a dispatched agent started: its invocation, or how
// it ended at once (a subagent_start hook blocked it).
type DispatchedResult struct {
	Child *delegation.Frame
	Ended *loop.Outcome
}

// Root records the run and opens its root invocation.
func (a *Activities) Root(ctx context.Context, key delegation.Key, run trace.Run, req delegation.Request) (RootResult, error) {
	f, ended, err := a.Steps.Root(ctx, key, run, req)
	if err != nil {
		if ferr := a.flush(ctx); ferr != nil {
			return RootResult{}, ferr
		}
		return RootResult{}, temporal.NewNonRetryableApplicationError(err.Error(), "rejected", err)
	}
	return RootResult{Frame: f, Ended: ended}, a.flush(ctx)
}

// Turn makes one model call. A call cut short by the end of the
// activity's context for another reason than the workflow's cancel (its
// worker stops, the server timed the attempt out) is left to the retry,
// which makes it again on another worker with the same key (leave); on
// the last attempt it ends with status error (attemptCtx).
func (a *Activities) Turn(ctx context.Context, key delegation.Key, f delegation.Frame, attempt int, retry bool) (TurnResult, error) {
	defer a.beatWith(ctx, startedNow())()
	cctx, stop := attemptCtx(ctx, modelCallEnds)
	defer stop()
	ev, usd := a.Steps.Turn(cctx, key, f, attempt, retry)
	if ev.Kind != loop.EvModel && delegation.HandedOver(cctx) {
		return TurnResult{}, a.leave(ctx, errCallLeft)
	}
	return TurnResult{Event: ev, CostUSD: usd}, a.flush(ctx)
}

// TurnLost ends a model call whose Turn activity's attempt was lost with
// its worker (killed: no process was left to end the call, and the
// server timed the attempt out, l), as that attempt would have, had its
// worker lived: on its last attempt with status error (attemptCtx),
// under the invocation's stop as on hearing it (status cancelled, or
// the stop's). It runs the step again on a context already ended so
// (Loss.ctx), under the same key, so the call's chat span, the same
// span, ends, and no model is called (a call starts on no ended
// context).
func (a *Activities) TurnLost(ctx context.Context, key delegation.Key, f delegation.Frame, attempt int, retry bool, l Loss) (TurnResult, error) {
	ev, usd := a.Steps.Turn(l.ctx(ctx, modelCallEnds), key, f, attempt, retry)
	return TurnResult{Event: ev, CostUSD: usd}, a.flush(ctx)
}

// Tool runs one tool call; idem is its idempotency key. A call cut short
// in the same way as Turn's is left to the retry, which calls the tool
// again with the same idempotency key.
func (a *Activities) Tool(ctx context.Context, key delegation.Key, f delegation.Frame, c model.ToolCall, idem string) (ToolResult, error) {
	return a.tool(ctx, key, f, c, idem, nil)
}

// tool runs a tool call (Tool, AnsweredTool: ans the answer to the
// approval it asked for).
func (a *Activities) tool(ctx context.Context, key delegation.Key, f delegation.Frame, c model.ToolCall, idem string, ans *approval.Approval) (ToolResult, error) {
	defer a.beatWith(ctx, startedNow())()
	cctx, stop := attemptCtx(ctx, toolCallEnds)
	defer stop()
	r, err := a.callTool(cctx, key, f, c, idem, ans)
	if err == nil && delegation.HandedOver(cctx) {
		return ToolResult{}, a.leave(ctx, errCallLeft)
	}
	return r, a.done(ctx, err)
}

// ToolLost ends a tool call whose Tool or AnsweredTool activity's
// attempt was lost with its worker (l), as TurnLost ends a model call:
// its execute_tool span ends (error on the last attempt, cancelled under
// the invocation's stop) and the tool is not called (it runs on no ended
// context), nor its pre_tool hooks, and nobody is asked for approval
// (the answer the workflow waited for, ans, is recorded again); the
// model reads that error.
func (a *Activities) ToolLost(ctx context.Context, key delegation.Key, f delegation.Frame, c model.ToolCall, idem string, ans *approval.Approval, l Loss) (ToolResult, error) {
	r, err := a.callTool(l.ctx(ctx, toolCallEnds), key, f, c, idem, ans)
	return r, a.done(ctx, err)
}

// callTool is the step of a tool call under ctx, with the answer to the
// approval it asked for (ans) on ctx.
func (a *Activities) callTool(ctx context.Context, key delegation.Key, f delegation.Frame, c model.ToolCall, idem string, ans *approval.Approval) (ToolResult, error) {
	if ans != nil {
		ctx = answered(ctx, *ans)
	}
	out, loaded, err := a.Steps.Tool(ctx, key, f, c, idem, ans)
	return ToolResult{Text: out, Skills: loaded}, err
}

// What ends when a model or tool call's last attempt is lost
// (lastAttemptLost).
const (
	modelCallEnds = "the model call ends"
	toolCallEnds  = "the tool call ends"
)

// errCallLeft is the error of a Turn or Tool attempt that left its call
// to the activity's retry.
var errCallLeft = errors.New("the call is left to the activity's next attempt")

// leave ends an attempt that left its work to the activity's retry (why):
// its spans so far are stored first, so the retry, whose spans have the
// same IDs, rewrites them rather than being overwritten by them. The
// error is no application error of ours, so Temporal retries it.
func (a *Activities) leave(ctx context.Context, why error) error {
	return errors.Join(why, a.flush(ctx))
}

// Async runs a turn's async calls (get_skill, dispatches, background
// delegations).
func (a *Activities) Async(ctx context.Context, key delegation.Key, f delegation.Frame, calls []model.ToolCall, idxs []int, stream bool, known []string) (loop.Event, error) {
	ev, err := a.Steps.Async(ctx, key, f, calls, idxs, stream, known)
	return ev, a.done(ctx, err)
}

// Check checks a delegate call.
func (a *Activities) Check(ctx context.Context, key delegation.Key, f delegation.Frame, it loop.Item, rec delegation.Delegation) (CheckResult, error) {
	rec, ev, err := a.Steps.Check(ctx, key, f, it, rec)
	return CheckResult{Delegation: rec, Event: ev}, a.done(ctx, err)
}

// Start starts a checked delegation's child, or says what it waits for.
func (a *Activities) Start(ctx context.Context, key delegation.Key, f delegation.Frame, it loop.Item, rec delegation.Delegation) (StartResult, error) {
	rec, ended, asked, err := a.Steps.Start(ctx, key, f, it, rec, nil)
	return StartResult{Delegation: rec, Ended: ended, Asked: asked}, a.done(ctx, err)
}

// Remote carries a started delegation to its remote agent (an A2A agent,
// delegation/a2a) and back. It heartbeats while the remote task runs, so
// a cancel of the run reaches it and is sent on (tasks/cancel). Its
// heartbeats carry the remote task once the remote names it
// (delegation.RemoteRef): a retry after a lost worker reads them and
// follows that task rather than sending the task again. They also carry
// when the delegation's first attempt started, from the first beat, so the
// remote agent's timeout counts from then on every retry rather than
// restarting with each attempt (remoteBeat).
//
// Only the workflow's cancel (the run cancelled) cancels the remote task.
// The activity's context also ends when this attempt is no longer the one
// that counts (the server timed it out and retries it, it was paused or
// reset, heartbeats failed past the timeout) or its worker stops; the
// retry follows the same task then, so this attempt leaves it running
// (handOver) and fails, retryably. On the last attempt the retry policy
// allows no retry comes, so that end cancels the task instead and ends
// the delegation with an error saying so (attemptCtx).
func (a *Activities) Remote(ctx context.Context, key delegation.Key, f delegation.Frame, it loop.Item, rec delegation.Delegation) (loop.Outcome, error) {
	// A retry's beats carry the lost attempt's task and start from the
	// first: one without them would erase them before Send names the task.
	lost := lostAttempt(ctx)
	var last atomic.Pointer[remoteBeat]
	last.Store(&lost)
	defer a.beatWith(ctx, func() any { return *last.Load() })()
	sctx, stop := attemptCtx(ctx, remoteTaskEnds)
	defer stop()
	at := delegation.RemoteAttempt{Resume: lost.task(), Since: lost.Since,
		Started: func(ref delegation.RemoteRef) {
			b := remoteBeat{RemoteRef: ref, Since: lost.Since}
			last.Store(&b)
			// Not left to the next beat, since the worker may be lost before
			// it; the SDK still holds it back until its throttle interval
			// (0.8 × the heartbeat timeout) ends when a heartbeat went within it.
			activity.RecordHeartbeat(ctx, b)
		}}
	o, err := a.Steps.Remote(sctx, key, f, it, rec, at)
	if errors.Is(err, delegation.ErrHandedOver) {
		return o, a.leave(ctx, err)
	}
	return o, a.done(ctx, err)
}

// handOver says an ended activity context is not the workflow's cancel,
// which the SDK gives as a CanceledError cause (the heartbeat's answer);
// the other ends are the server's NotFound (the attempt was timed out),
// ErrActivityPaused or ErrActivityReset, a heartbeat error past the
// timeout, ErrWorkerShutdown, or the attempt's deadline.
func handOver(ctx context.Context) bool {
	return ctx.Err() != nil && !temporal.IsCanceledError(context.Cause(ctx))
}

// attemptCtx is the context an attempt of a call activity (Turn, Tool,
// Remote) runs its call under, and a stop to call when it returns. It
// ends when the activity's context does, with the same cause, but for an
// end that is not the workflow's cancel (handOver): on
// any attempt but the last (finalAttempt) that cause is
// delegation.ErrHandedOver, so the call leaves its span open for the
// retry (delegation.HandedOver); on the last no retry would follow, so
// nothing is handed over: the cause is delegation.ErrLastAttemptLost,
// saying what ends, and the call ends with status error (a model call's
// or tool call's span, the remote task cancelled and the delegation's
// span, delegation.Steps.Remote). Its context has no deadline of its
// own: it ends when the activity's does.
func attemptCtx(ctx context.Context, ends string) (context.Context, func()) {
	info := activity.GetInfo(ctx)
	actx, end := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		cause := context.Cause(ctx)
		switch {
		case !handOver(ctx):
		case finalAttempt(info):
			cause = lastAttemptLost(info, ends, cause)
		default:
			cause = fmt.Errorf("%w: %w", delegation.ErrHandedOver, cause)
		}
		end(cause)
	})
	return actx, func() { stop(); end(nil) }
}

// lastAttemptLost is the cause of a last attempt (finalAttempt) that ended
// for another reason than the workflow's cancel (handOver, cause), saying
// what ends rather than being left to a retry.
func lastAttemptLost(info activity.Info, ends string, cause error) error {
	return lostForGood(fmt.Sprintf(" (%d of %d)", info.Attempt, info.RetryPolicy.MaximumAttempts), ends, cause)
}

// lostForGood is lastAttemptLost with the attempts in words (" (2 of
// 2)"), or "" where they are not known: in the workflow, which hears
// only that the server timed out the last attempt (Loss.ctx).
func lostForGood(attempts, ends string, cause error) error {
	return fmt.Errorf("%w%s, so %s, not left to a retry: %w", delegation.ErrLastAttemptLost, attempts, ends, cause)
}

// RemoteLost ends a delegation whose Remote activity's attempt was lost
// with its worker (killed: no process was left to end it, and the server
// timed the attempt out, l), as that attempt would have, had its worker
// lived: on its last attempt with status error (attemptCtx), under the
// invocation's stop as on hearing it (cancelled). It runs the delegation
// again on a context already ended so (Loss.ctx), following the task the
// attempt's last heartbeat named (lost), so Send cancels that task and
// the delegation's span, the same span, ends.
func (a *Activities) RemoteLost(ctx context.Context, key delegation.Key, f delegation.Frame, it loop.Item, rec delegation.Delegation, lost remoteBeat, l Loss) (loop.Outcome, error) {
	o, err := a.Steps.Remote(l.ctx(ctx, remoteTaskEnds), key, f, it, rec, delegation.RemoteAttempt{Resume: lost.task(), Since: lost.Since})
	return o, a.done(ctx, err)
}

// RemoteCancelLost is RemoteLost under the invocation's stop, under the
// name the histories recorded behind the remote-cancel-lost version
// marker hold (a local activity replays by its name).
func (a *Activities) RemoteCancelLost(ctx context.Context, key delegation.Key, f delegation.Frame, it loop.Item, rec delegation.Delegation, lost remoteBeat, l Loss) (loop.Outcome, error) {
	return a.RemoteLost(ctx, key, f, it, rec, lost, l)
}

// remoteTaskEnds is what ends when a Remote's attempt is lost.
const remoteTaskEnds = "the remote task is cancelled"

// Loss is how a call activity's attempt (Turn, Tool, Remote) was lost
// with its worker, which then ended nothing: the server timed it out and
// no retry follows (the workflow's lossIn). Why is the server's words;
// Stop is the invocation's stop it was lost under (its cancel, its
// timeout: the server retries no activity it was asked to cancel), nil
// when it was the last attempt its retry policy allows. Started is when
// a Turn or Tool attempt's call began, as its heartbeats said (callBeat;
// zero: none had gone), which its span then starts at.
type Loss struct {
	Why     string
	Stop    *loop.Outcome `json:",omitempty"`
	Started time.Time     `json:",omitzero"`
}

// ctx is ctx already ended as the lost attempt's call context would have
// ended had its worker lived, saying what ends: on the last attempt with
// delegation.ErrLastAttemptLost (attemptCtx), without the attempts'
// count, which the workflow does not know; under the invocation's stop
// with the stop's words and the end it is (stopCause). It says when the
// call began (delegation.CallStarted).
func (l Loss) ctx(ctx context.Context, ends string) context.Context {
	cause := lostForGood("", ends, errors.New(l.Why))
	if l.Stop != nil {
		cause = stopCause{words: l.Stop.Error + ", so " + ends + "; its worker was lost: " + l.Why, end: stopEnd(l.Stop.Status)}
	}
	ended, end := context.WithCancelCause(delegation.CallStarted(ctx, l.Started))
	end(cause)
	return ended
}

// callBeat is what a Turn or Tool attempt's heartbeats carry: when its
// call began, so that the call of an attempt lost with its worker is ended
// (TurnLost, ToolLost) on a span that starts then, not when the workflow
// ends it.
type callBeat struct{ Started time.Time }

// startedNow is the details of a Turn or Tool attempt's heartbeats
// (beatWith): its call begins now.
func startedNow() func() any {
	b := callBeat{Started: time.Now()}
	return func() any { return b }
}

// stopCause is an invocation's stop as a lost call's context cause: its
// words, and the end they are (end, nil: a cancel), which the step reads
// as it reads an in-process invocation's stop (status timeout, error,
// else cancelled).
type stopCause struct {
	words string
	end   error
}

func (e stopCause) Error() string { return e.words }
func (e stopCause) Unwrap() error { return e.end }

// stopEnd is the error a stop of status s is read as (stopCause).
func stopEnd(s trace.Status) error {
	switch s {
	case trace.StatusTimeout:
		return context.DeadlineExceeded
	case trace.StatusError: // the run's token_budget spent (driver.stop)
		return delegation.ErrTokenBudget
	}
	return nil
}

// finalAttempt says no retry follows this attempt of the activity
// whatever its end: its retry policy, as the server runs it (which an
// operator may have changed since it was scheduled), allows no more. A
// policy of unlimited attempts (0), or none the server sent, retries.
func finalAttempt(info activity.Info) bool {
	p := info.RetryPolicy
	return p != nil && p.MaximumAttempts > 0 && info.Attempt >= p.MaximumAttempts
}

// remoteBeat is what a Remote attempt's heartbeats carry: the remote task
// once the remote names it, and when the delegation's first attempt
// started, which the remote agent's timeout counts from. Its JSON is a
// RemoteRef's with Since beside it, so a RemoteRef an earlier worker
// recorded reads as one whose start is unknown.
type remoteBeat struct {
	delegation.RemoteRef
	Since time.Time
}

// task is the remote task b names, nil when none.
func (b remoteBeat) task() *delegation.RemoteRef {
	if b.TaskID == "" {
		return nil
	}
	return &b.RemoteRef
}

// lostAttempt is what an earlier attempt of this Remote activity recorded
// in its heartbeats: on a first attempt (or details without a start) it
// starts now.
func lostAttempt(ctx context.Context) remoteBeat {
	var b remoteBeat
	if !activity.HasHeartbeatDetails(ctx) || activity.GetHeartbeatDetails(ctx, &b) != nil {
		b = remoteBeat{}
	}
	if b.Since.IsZero() {
		b.Since = time.Now()
	}
	return b
}

// Finish ends a delegation: refused, unstarted, or after its child.
func (a *Activities) Finish(ctx context.Context, key delegation.Key, f delegation.Frame, it loop.Item, rec delegation.Delegation, o loop.Outcome, ran bool, refused string) (loop.Event, error) {
	ev, err := a.Steps.Finish(ctx, key, f, it, rec, o, ran, refused)
	return ev, a.done(ctx, err)
}

// StartDispatched starts a dispatched agent.
func (a *Activities) StartDispatched(ctx context.Context, key delegation.Key, f delegation.Frame, it loop.Item) (DispatchedResult, error) {
	child, ended, err := a.Steps.StartDispatched(ctx, key, f, it)
	return DispatchedResult{Child: child, Ended: ended}, a.done(ctx, err)
}

// EndDispatched ends a dispatch with its agent's outcome.
func (a *Activities) EndDispatched(ctx context.Context, key delegation.Key, f delegation.Frame, it loop.Item, o loop.Outcome, ran bool, calls int, took time.Duration, skills []string) (loop.Outcome, error) {
	o, err := a.Steps.EndDispatched(ctx, key, f, it, o, ran, calls, took, skills)
	return o, a.done(ctx, err)
}

// Collect records a get_agent_results call.
func (a *Activities) Collect(ctx context.Context, key delegation.Key, f delegation.Frame, c model.ToolCall, since time.Time, act loop.Action) (string, error) {
	out, err := a.Steps.Collect(ctx, key, f, c, since, act)
	return out, a.done(ctx, err)
}

// Close ends an invocation; with run set, the run.
func (a *Activities) Close(ctx context.Context, key delegation.Key, f delegation.Frame, o loop.Outcome, run *trace.Run) (loop.Outcome, error) {
	o, err := a.Steps.Close(ctx, key, f, o, run)
	if err != nil {
		return o, err
	}
	return o, a.flush(ctx)
}

// Event adds an event to a span the workflow holds (delegation.Steps.Event).
func (a *Activities) Event(ctx context.Context, key delegation.Key, sp trace.Span, name string, attrs map[string]any, at time.Time) (trace.Span, error) {
	sp, err := a.Steps.Event(ctx, key, sp, name, attrs, at)
	if err != nil {
		return sp, err
	}
	return sp, a.flush(ctx)
}

// done ends a step: a frame the worker cannot rebuild is not retried (it
// will not rebuild on another worker either); else the step's spans are
// flushed before it completes.
func (a *Activities) done(ctx context.Context, err error) error {
	if err != nil {
		return temporal.NewNonRetryableApplicationError(err.Error(), "frame", err)
	}
	return a.flush(ctx)
}

func (a *Activities) flush(ctx context.Context) error {
	if a.Flush == nil {
		return nil
	}
	// A cancelled step's spans (ended cancelled) are stored all the same.
	return a.Flush(context.WithoutCancel(ctx))
}

// beatWith heartbeats with details' details until the returned stop is
// called: every heartbeat carries them, as a heartbeat without details
// would clear those the server holds.
func (a *Activities) beatWith(ctx context.Context, details func() any) (stop func()) {
	every := a.Beat
	if every <= 0 {
		every = time.Second
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx, details())
			}
		}
	}()
	return func() { close(done) }
}
