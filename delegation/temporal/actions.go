package temporal

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/orchestrator"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// perform carries out an action that an event answers, on its own
// workflow goroutine.
func (d *driver) perform(c workflow.Context, w work) loop.Event {
	act := &w.a
	switch act.Kind {
	case loop.ActModel:
		return d.model(c, w)
	case loop.ActSleep:
		_ = workflow.Sleep(c, act.Wait)
		return loop.Event{Kind: loop.EvWoke}
	case loop.ActBudget:
		return loop.Event{Kind: loop.EvBudget, Why: askLedger(c, LedgerAsk{}).Budget}
	case loop.ActCalls:
		n, why := turnCalls(c, *d.f, act.N)
		if g, wwhy := window(c, n); g < n {
			n, why = g, wwhy
		}
		return loop.Event{Kind: loop.EvGranted, N: n, Why: why}
	case loop.ActTool:
		idem := w.f.RunID + "/" + w.f.Span.ID + "/" + w.call.ID
		var out ToolResult
		if err := d.tool(c, d.ks.next(), w.f, w.call, idem, &out); err != nil {
			out.Text = "error: " + message(err)
		}
		d.f.Load(out.Skills) // the steps after it keep what it loaded
		return loop.Event{Kind: loop.EvTool, Index: act.Index, Text: out.Text}
	case loop.ActAsync:
		return d.async(c, w)
	case loop.ActCollect:
		var out string
		if err := localStep(c, &out, a.Collect, d.ks.next(), w.f, w.call, d.collects[act.Index], *act); err != nil {
			out = "error: " + message(err)
		}
		return loop.Event{Kind: loop.EvTool, Index: act.Index, Text: out}
	case loop.ActAcquire:
		takeSlot(c)
		return loop.Event{Kind: loop.EvSlotBack}
	}
	ev := d.itemStep(c, w)
	ev.Item = act.Item
	return ev
}

// model makes one model call, an activity: one attempt, its chat span and
// the tokens and cost it adds to the tally and the ledger.
func (d *driver) model(c workflow.Context, w work) loop.Event {
	var r TurnResult
	key := d.ks.next()
	err := workflow.ExecuteActivity(callCtx(c, w.f.Timeout), a.Turn, key, w.f, w.a.Attempt, w.a.Retry).Get(c, &r)
	var b callBeat
	if l, ok := d.loss(c, err, &b, callLost); ok {
		l.Started = b.Started
		lerr := localStep(c, &r, a.TurnLost, key, w.f, w.a.Attempt, w.a.Retry, l)
		if l.Stop == nil { // under the stop, the call ends as its invocation does (failure)
			err = lerr
		}
	}
	if err != nil {
		return loop.Event{Kind: loop.EvModelFailed, Outcome: d.failure(c, err)}
	}
	if resp := r.Event.Resp; r.Event.Kind == loop.EvModel && resp != nil {
		d.tally.InputTokens += resp.InputTokens
		d.tally.OutputTokens += resp.OutputTokens
		d.tally.CostUSD += r.CostUSD
		spend(c, resp.InputTokens+resp.OutputTokens, r.CostUSD)
	}
	return r.Event
}

// failure is the outcome of an activity or child workflow that failed:
// the invocation's stop when its context ended, else the error.
func (d *driver) failure(c workflow.Context, err error) loop.Outcome {
	switch {
	case c.Err() != nil || temporal.IsCanceledError(err):
		if d.ctx.Err() != nil {
			return d.stop()
		}
		return d.jobStop()
	case temporal.IsTimeoutError(err):
		return loop.Outcome{Status: trace.StatusTimeout, Error: message(err)}
	}
	return loop.Outcome{Status: trace.StatusError, Error: message(err)}
}

// jobStop is how a background agent ends when its dispatcher's invocation
// ends under it.
func (d *driver) jobStop() loop.Outcome {
	if d.jobsEnded {
		return loop.Outcome{Status: trace.StatusCancelled, Error: loop.ErrDispatcherEnded.Error()}
	}
	return d.stop()
}

// async runs the turn's async calls (a local activity) and holds the
// background agents they start.
func (d *driver) async(c workflow.Context, w work) loop.Event {
	if d.jctx == nil {
		d.jctx, d.jcancel = workflow.WithCancel(d.ctx)
	}
	calls := d.m.Calls()
	var ev loop.Event
	err := localStep(c, &ev, a.Async, d.ks.next(), w.f, calls, w.a.Indexes, w.a.Stream, d.m.JobIDs())
	if err != nil {
		ev = loop.Event{Kind: loop.EvAsync, Results: make([]string, len(calls))}
		for _, i := range w.a.Indexes {
			ev.Results[i] = "error: " + message(err)
		}
	}
	for _, j := range ev.Jobs {
		d.jobs = append(d.jobs, &item{rec: delegation.Delegation{Span: j.Span}})
	}
	if len(ev.Jobs) > 0 {
		d.listen() // the agents it dispatched ask it for their per-turn tool calls
	}
	return ev
}

// itemStep carries out an action on a delegation: a batch call, a
// background delegate call or a dispatched agent.
func (d *driver) itemStep(c workflow.Context, w work) loop.Event {
	if w.it.Kind == loop.Dispatch {
		return d.dispatchStep(c, w)
	}
	switch w.a.Kind {
	case loop.ActRefuse:
		return d.refuse(c, w)
	case loop.ActCheck:
		return d.check(c, w)
	case loop.ActAdmit:
		if ev := d.check(c, w); ev.Kind != loop.EvChecked {
			return ev
		}
		return d.slot(c, w)
	case loop.ActSlot:
		return d.slot(c, w)
	case loop.ActRun:
		return d.run(c, w)
	}
	return d.finish(c, w, w.a.Outcome, false)
}

func (d *driver) refuse(c workflow.Context, w work) loop.Event {
	var ev loop.Event
	if err := localStep(c, &ev, a.Finish, d.ks.next(), w.f, *w.it, w.held.rec, w.a.Outcome, false, w.a.Refused); err != nil {
		return errorDone(err)
	}
	return ev
}

// check runs a delegate call's checks (a local activity) after the ledger
// has said whether the budget is spent and reserved its agent under
// max_agents_per_run.
func (d *driver) check(c workflow.Context, w work) loop.Event {
	f := w.f
	f.BudgetSpent = budgetSpent(c)  // a spent budget refuses the delegation (budget.go)
	f.AgentsFull = !reserveAgent(c) // and so does max_agents_per_run (ledger.go)
	var r CheckResult
	if err := localStep(c, &r, a.Check, d.ks.next(), f, *w.it, w.held.rec); err != nil {
		return errorDone(err)
	}
	w.held.rec = r.Delegation
	if r.Event.Kind != loop.EvChecked {
		if !f.AgentsFull {
			giveBackAgent(c)
		}
		if f.BudgetSpent != "" {
			notStarted(c, f, w.it.Call, d.tally)
		}
	}
	return r.Event
}

// slot takes a run-wide slot from the ledger; a wait for one is recorded
// on the call's span, as in-process.
func (d *driver) slot(c workflow.Context, w work) loop.Event {
	ok, queued := takeSlotAt(c)
	if !ok {
		return d.finish(c, w, d.stopOf(c), false)
	}
	now := workflow.Now(c)
	if !queued.IsZero() {
		d.waitedOn(c, w.held, semconv.CapRun, d.f.Caps.MaxConcurrent, true, queued)
		d.waitedOn(c, w.held, semconv.CapRun, d.f.Caps.MaxConcurrent, false, time.Time{})
	}
	w.held.rec.QueuedMS = now.Sub(w.held.rec.Span.StartedAt).Milliseconds()
	return loop.Event{Kind: loop.EvSlot}
}

// stopOf is how an action cut short by its context ends.
func (d *driver) stopOf(c workflow.Context) loop.Outcome {
	if d.ctx.Err() != nil {
		return d.stop()
	}
	return d.jobStop()
}

// run starts a checked delegation (a local activity, after the approval
// its target needs), runs its child workflow and finishes it.
func (d *driver) run(c workflow.Context, w work) loop.Event {
	defer giveSlot(c)
	var r StartResult
	if err := localStep(c, &r, a.Start, d.ks.next(), w.f, *w.it, w.held.rec); err != nil {
		return errorDone(err)
	}
	if r.Asked != nil { // the target needs approval (approval.go)
		if err := answeredStart(c, d.ks.next(), w.f, *w.it, w.held.rec, *r.Asked, &r); err != nil {
			return errorDone(err)
		}
	}
	if r.Ended != nil {
		return *r.Ended
	}
	w.held.rec = r.Delegation
	if r.Delegation.Remote != nil { // the target runs elsewhere: one activity, no child workflow
		return d.remote(c, w)
	}
	if r.Delegation.Child == nil { // cannot happen: a start without a child ended
		return errorDone(errNoChild)
	}
	res, err := d.child(c, w, *r.Delegation.Child, w.it.Args.Task)
	w.held.rec.Loaded = res.Skills
	if err != nil {
		return errorDone(err)
	}
	return d.finish(c, w, res.Outcome, true)
}

// child runs a started invocation f as a child workflow, its ID the run's
// and its span's, and adds its tally, its ledger line's task being task.
// Its outcome is as its invoker reads it (ended); a child that never ran
// or never closed ends with the invocation's failure, its span closed
// here (the error is that step's).
func (d *driver) child(c workflow.Context, w work, f delegation.Frame, task string) (InvocationResult, error) {
	d.tally.Agents++
	cctx := workflow.WithChildOptions(c, workflow.ChildWorkflowOptions{
		WorkflowID: w.f.RunID + "-" + f.Span.ID, WaitForCancellation: true})
	var r InvocationResult
	err := workflow.ExecuteChildWorkflow(cctx, InvocationWorkflowName, f).Get(c, &r)
	if len(r.Tally.Ledger) > 0 {
		r.Tally.Ledger[0].Task = task
	}
	d.tally.add(r.Tally)
	if err == nil {
		r.Outcome = d.ended(w.it, r.Outcome)
		return r, nil
	}
	r.Outcome = d.failure(c, err)
	return r, localStep(c, nil, a.Close, d.ks.next(), f, r.Outcome, (*trace.Run)(nil))
}

// remote runs a started delegation to a remote agent as the Remote
// activity and finishes it. A cancel reaches the activity with its next
// heartbeat; the activity ends the remote task and its span first
// (WaitForCancellation). Like a model call it is bounded by its agent's
// timeout, which counts from the first attempt (Activities.Remote).
// When its attempt was lost with its worker (loss), RemoteLost cancels
// the remote task its last heartbeat named and ends its span.
func (d *driver) remote(c workflow.Context, w work) loop.Event {
	d.tally.Agents++
	key := d.ks.next()
	var o loop.Outcome
	err := workflow.ExecuteActivity(callCtx(c, w.held.rec.Remote.Timeout), a.Remote, key, w.f, *w.it, w.held.rec).Get(c, &o)
	if err != nil {
		o = d.failure(c, err) // under the stop, the delegation ends as its invocation does
	}
	var lost remoteBeat
	if l, ok := d.loss(c, err, &lost, remoteLost); ok {
		end := a.RemoteLost
		if l.Stop != nil {
			end = a.RemoteCancelLost
		}
		var lo loop.Outcome
		lerr := localStep(c, &lo, end, key, w.f, *w.it, w.held.rec, lost, l)
		switch {
		case l.Stop != nil:
		case lerr != nil:
			o = loop.Outcome{Status: trace.StatusError, Error: message(lerr)}
		default:
			o = lo
		}
	}
	return d.finish(c, w, o, true)
}

// The version markers behind which the workflow ends a call whose
// activity's attempt was lost with its worker (loss): on its last
// attempt, and under its invocation's stop. A history from before them
// ended the call with the timeout (or as its invocation stopped) and left
// its span running (and a remote task going).
var (
	callLost   = lossMarkers{last: "call-lost", stopped: "call-cancel-lost"}
	remoteLost = lossMarkers{last: "remote-lost", stopped: "remote-cancel-lost"}
)

type lossMarkers struct{ last, stopped string }

// loss reads a call activity's failure err under c (the action's
// context): a Loss when the attempt was lost with its worker and no
// retry follows (lossIn), with the invocation's stop when c was stopped,
// and true when the history ends it (its version marker, of markers, is
// there or is being recorded). It reads the attempt's last heartbeat
// details into beat (a pointer; nil: none are wanted).
func (d *driver) loss(c workflow.Context, err error, beat any, markers lossMarkers) (Loss, bool) {
	why, stopped, ok := lossIn(c, err, beat)
	if !ok {
		return Loss{}, false
	}
	l, marker := Loss{Why: why}, markers.last
	if stopped {
		o := d.stopOf(c)
		l.Stop, marker = &o, markers.stopped
	}
	return l, workflow.GetVersion(c, marker, workflow.DefaultVersion, 1) == 1
}

// lossIn reads an activity's failure err under c: a timeout, which the
// workflow hears only when the attempt was lost with its worker (killed,
// or stuck), so it ended nothing, and no retry follows: the last attempt
// its retry policy allows, or one under c's cancel (stopped), as the
// server retries no activity it was asked to cancel. It returns the
// server's words, and reads the attempt's last heartbeat details into
// beat (a pointer; nil: none are wanted), which stays as it was when none
// were recorded (details of another shape may be read in part).
func lossIn(c workflow.Context, err error, beat any) (why string, stopped, ok bool) {
	var te *temporal.TimeoutError
	if !errors.As(err, &te) {
		return "", false, false
	}
	if beat != nil && te.HasLastHeartbeatDetails() {
		_ = te.LastHeartbeatDetails(beat)
	}
	return "the server timed out the attempt: " + te.Message(), c.Err() != nil, true
}

// finish ends a delegation (a local activity): with its child's outcome
// when it ran, else with o.
func (d *driver) finish(c workflow.Context, w work, o loop.Outcome, ran bool) loop.Event {
	var ev loop.Event
	if err := localStep(c, &ev, a.Finish, d.ks.next(), w.f, *w.it, w.held.rec, o, ran, ""); err != nil {
		return errorDone(err)
	}
	return ev
}

// dispatchStep carries out an action on a dispatched agent: reserve its
// agent, take a run-wide slot, run it as a child workflow, or end it.
func (d *driver) dispatchStep(c workflow.Context, w work) loop.Event {
	o, ran, calls := w.a.Outcome, false, 0
	var skills []string
	switch w.a.Kind {
	case loop.ActCheck:
		if reserveAgent(c) {
			return loop.Event{Kind: loop.EvChecked}
		}
		o = loop.Outcome{Status: trace.StatusError, Error: orchestrator.AgentsFull(d.f.Caps.MaxAgents)}
	case loop.ActSlot:
		if takeSlot(c) {
			return loop.Event{Kind: loop.EvSlot}
		}
		o = d.stopOf(c)
	case loop.ActRun:
		o, calls, skills, ran = d.runAdhoc(c, w)
		o = d.ended(w.it, o)
		giveSlot(c)
	}
	took := workflow.Now(c).Sub(w.it.Started)
	if err := localStep(c, &o, a.EndDispatched, d.ks.next(), w.f, *w.it, o, ran, calls, took, skills); err != nil {
		o = loop.Outcome{Status: trace.StatusError, Error: message(err)}
	}
	return loop.Event{Kind: loop.EvDone, Outcome: o, Calls: calls}
}

// runAdhoc starts a dispatch's ad-hoc agent (a local activity) and runs it
// as a child workflow; ran is false when it never started. It returns the
// skills the agent loaded, for its span.
func (d *driver) runAdhoc(c workflow.Context, w work) (loop.Outcome, int, []string, bool) {
	var sr DispatchedResult
	if err := localStep(c, &sr, a.StartDispatched, d.ks.next(), w.f, *w.it); err != nil {
		return loop.Outcome{Status: trace.StatusError, Error: message(err)}, 0, nil, false
	}
	if sr.Ended != nil {
		return *sr.Ended, 0, nil, false
	}
	var args struct{ Mission string }
	_ = json.Unmarshal(w.it.Call.Args, &args)
	r, _ := d.child(c, w, *sr.Child, args.Mission) // its outcome stands whether or not its span could be closed
	return r.Outcome, r.ToolCalls, r.Skills, true
}

var errNoChild = errors.New("the delegation started no child")

// ended is a background agent's outcome o, or, when its dispatcher's
// invocation ended under it and so it was cancelled, the in-process words
// for that: its child knows only that it was cancelled.
func (d *driver) ended(it *loop.Item, o loop.Outcome) loop.Outcome {
	if it.Kind != loop.Batch && d.jobsEnded && o.Status == trace.StatusCancelled {
		return d.jobStop()
	}
	return o
}

// errorDone ends an item whose step failed with that error.
func errorDone(err error) loop.Event {
	o := loop.Outcome{Status: trace.StatusError, Error: message(err)}
	return loop.Event{Kind: loop.EvDone, Outcome: o, Text: "error: " + o.Error}
}
