package temporal

import (
	"context"
	"encoding/json"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// An orchestrator on Temporal (docs/temporal.md): a Dispatch step per turn
// runs the in-process checks and opens the spans; each background agent is
// a goroutine of the dispatcher's workflow that waits for its depends_on
// agents and runs a child invocation workflow; get_agent_results, and a
// final answer given while agents are uncollected, wait for those
// goroutines. The agents end (cancelled) when the dispatcher's invocation
// ends, as in-process.

// job is one background agent of an invocation workflow.
type job struct {
	delegation.Job
	turn      int // the dispatcher's model turn that started it
	done      bool
	o         delegation.Outcome
	calls     int
	started   time.Time
	took      time.Duration
	collected bool // its result reached the model
}

// jobs are an invocation workflow's background agents; they run under ctx.
type jobs struct {
	byID    map[string]*job
	order   []*job
	running int // background agents running under the dispatcher's max_concurrent
	// turn counts the dispatcher's model turns that started agents;
	// inTurn[t] are turn t's agents running (limits.turn_agents), and
	// turnCalls[t] the tool calls its dispatched agents made
	// (limits.turn_tool_calls), answered by listen: a per-turn cap counts
	// one model turn, as in-process.
	turn      int
	inTurn    map[int]int
	turnCalls map[int]int
	listening bool
	streamed  bool // this turn's delegate calls streamed (stream.go)
	stopped   bool // the dispatcher's invocation ended (stop)
	ctx       workflow.Context
	cancel    workflow.CancelFunc
}

func newJobs(ctx workflow.Context) *jobs {
	c, cancel := workflow.WithCancel(ctx)
	return &jobs{byID: map[string]*job{}, inTurn: map[int]int{}, turnCalls: map[int]int{}, ctx: c, cancel: cancel}
}

// stop ends the agents still running and waits until they have closed.
func (js *jobs) stop(ctx workflow.Context) {
	if len(js.order) == 0 {
		return
	}
	js.stopped = true
	js.cancel()
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	_ = workflow.Await(dctx, func() bool { return allDone(js.order) })
}

// ended is o, or, when o is a cancellation by stop, the in-process words
// for an agent whose dispatcher has ended.
func (js *jobs) ended(o delegation.Outcome) delegation.Outcome {
	if js.stopped && o.Status == trace.StatusCancelled {
		return delegation.Outcome{Status: trace.StatusCancelled, Error: delegation.ErrDispatcherEnded.Error()}
	}
	return o
}

func allDone(js []*job) bool {
	for _, j := range js {
		if !j.done {
			return false
		}
	}
	return true
}

// StartResult is a dispatched agent started: its invocation, or how it
// ended at once (a subagent_start hook blocked it).
type StartResult struct {
	Child *delegation.Frame
	Ended *delegation.Outcome
}

// dispatchTurn runs the turn's calls that a Dispatch step handles (when
// the turn has any), starts the agents it lets through, and returns which
// calls it handled (nil: none).
func dispatchTurn(ctx workflow.Context, ks *keyer, f delegation.Frame, calls []model.ToolCall, js *jobs, results []string, tally *Tally) ([]bool, error) {
	js.streamed = false
	may := delegation.StreamsTurn(f, calls)
	for _, c := range calls {
		may = may || delegation.MayDispatch(f, c)
	}
	if !may {
		return nil, nil
	}
	for _, j := range js.order {
		f.Jobs = append(f.Jobs, j.ID)
	}
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	var t delegation.DispatchTurn
	if err := workflow.ExecuteActivity(stepCtx(dctx), a.Dispatch, ks.next(), f, calls).Get(dctx, &t); err != nil {
		return nil, err
	}
	js.streamed = t.Streamed
	js.turn++
	for i, async := range t.Async {
		if async {
			results[i] = t.Results[i]
		}
	}
	for _, j := range t.Jobs {
		js.start(ks, f, j, tally)
	}
	return t.Async, nil
}

// start runs j in the background.
func (js *jobs) start(ks *keyer, f delegation.Frame, j delegation.Job, tally *Tally) {
	b := &job{Job: j, turn: js.turn, started: workflow.Now(js.ctx)}
	js.byID[j.ID] = b
	js.order = append(js.order, b)
	js.listen(js.ctx)
	key := ks.next()
	workflow.Go(js.ctx, func(c workflow.Context) {
		if j.Background {
			b.o = js.ended(js.background(c, ks, key, f, b, tally))
		} else {
			b.o, b.calls = js.dispatched(c, ks, key, f, b, tally)
		}
		b.took = workflow.Now(c).Sub(b.started)
		b.done = true
	})
}

// background runs a delegate call with background: true as any delegation,
// against the conversation as it was, in its turn's line
// (limits.turn_agents) and then under the agent's max_concurrent; a wait
// in either is recorded on its span as in-process.
func (js *jobs) background(c workflow.Context, ks *keyer, key delegation.Key, f delegation.Frame, b *job, tally *Tally) delegation.Outcome {
	agent := f.Branch[len(f.Branch)-1]
	var waited []agentWait
	w, ok := js.await(c, func() bool { return js.turnFree(f, b.turn) }, semconv.CapTurn, f.Schedule.TurnAgents, agent)
	if !ok {
		return cancelled()
	}
	if w != nil {
		waited = append(waited, *w)
	}
	js.inTurn[b.turn]++
	defer func() { js.inTurn[b.turn]-- }()
	if w, ok = js.await(c, func() bool { return js.running < f.Schedule.MaxConcurrent }, semconv.CapAgent, f.Schedule.MaxConcurrent, agent); !ok {
		return cancelled()
	}
	if w != nil {
		waited = append(waited, *w)
	}
	js.running++
	defer func() { js.running-- }()
	out, err := delegate(c, ks, key, f, b.Call, nil, "", waited, tally)
	if err != nil {
		return delegation.Outcome{Status: trace.StatusError, Error: message(err)}
	}
	return dependency(b.Call, out).Outcome
}

// turnFree reports whether one more of turn's agents may run under
// limits.turn_agents.
func (js *jobs) turnFree(f delegation.Frame, turn int) bool {
	return f.Schedule.TurnAgents <= 0 || js.inTurn[turn] < f.Schedule.TurnAgents
}

// await waits until free holds; when it had to wait, it returns the wait
// (the cap it waited for), for the delegation's queued and admitted
// events. ok is false when ctx ended first.
func (js *jobs) await(c workflow.Context, free func() bool, capName string, limit int, agent string) (w *agentWait, ok bool) {
	if free() {
		return nil, true
	}
	since := workflow.Now(c)
	if workflow.Await(c, free) != nil {
		return nil, false
	}
	return &agentWait{since: since, cap: capName, limit: limit, agent: agent}, true
}

// dispatched runs a dispatch once its dependencies have ended, as
// in-process: skipped after a failed one, refused under max_agents_per_run,
// else its agent under the dispatcher's max_concurrent and the run's.
func (js *jobs) dispatched(c workflow.Context, ks *keyer, key delegation.Key, f delegation.Frame, b *job, tally *Tally) (delegation.Outcome, int) {
	deps := make([]*job, 0, len(b.DependsOn))
	for _, id := range b.DependsOn {
		deps = append(deps, js.byID[id])
	}
	var o delegation.Outcome
	ran, calls := false, 0
	if err := workflow.Await(c, func() bool { return allDone(deps) }); err != nil {
		o = cancelled()
	} else {
		done := make([]delegation.Dependency, 0, len(deps))
		for _, d := range deps {
			done = append(done, delegation.Dependency{ID: d.ID, Outcome: d.o})
		}
		if so, skip := delegation.SkipDispatch(done); skip {
			o = so
		} else if !reserveAgent(c) {
			o = delegation.Outcome{Status: trace.StatusError, Error: delegation.AgentsFull(f.Caps.MaxAgents)}
		} else {
			o, calls, ran = js.runAdhoc(c, ks, key, f, b, done, tally)
		}
	}
	o = js.ended(o)
	dctx, _ := workflow.NewDisconnectedContext(c)
	took := workflow.Now(c).Sub(b.started)
	if err := workflow.ExecuteActivity(stepCtx(dctx), a.EndDispatched, ks.next(), f, b.Job, o, ran, calls, took).Get(dctx, &o); err != nil {
		return delegation.Outcome{Status: trace.StatusError, Error: message(err)}, calls
	}
	return o, calls
}

// runAdhoc starts a dispatch's ad-hoc agent and runs it as a child
// workflow; ran is false when it never started.
func (js *jobs) runAdhoc(c workflow.Context, ks *keyer, key delegation.Key, f delegation.Frame, b *job, deps []delegation.Dependency, tally *Tally) (o delegation.Outcome, calls int, ran bool) {
	if workflow.Await(c, func() bool { return js.turnFree(f, b.turn) }) != nil {
		return cancelled(), 0, false
	}
	js.inTurn[b.turn]++
	defer func() { js.inTurn[b.turn]-- }()
	if workflow.Await(c, func() bool { return js.running < f.Schedule.MaxConcurrent }) != nil {
		return cancelled(), 0, false
	}
	js.running++
	defer func() { js.running-- }()
	if !takeSlot(c) {
		return cancelled(), 0, false
	}
	defer giveSlot(c)
	dctx, _ := workflow.NewDisconnectedContext(c)
	var sr StartResult
	if err := workflow.ExecuteActivity(stepCtx(dctx), a.StartDispatched, key, f, b.Job, deps).Get(dctx, &sr); err != nil {
		return delegation.Outcome{Status: trace.StatusError, Error: message(err)}, 0, false
	}
	if sr.Ended != nil {
		return *sr.Ended, 0, false
	}
	tally.Agents++
	sr.Child.Turn = b.turn // its tool calls count in this turn's limits.turn_tool_calls
	cctx := workflow.WithChildOptions(c, workflow.ChildWorkflowOptions{
		WorkflowID:          f.RunID + "-" + sr.Child.Span.ID,
		WaitForCancellation: true,
	})
	var r InvocationResult
	err := workflow.ExecuteChildWorkflow(cctx, InvocationWorkflowName, *sr.Child).Get(c, &r)
	if len(r.Tally.Ledger) > 0 {
		var args struct{ Mission string }
		_ = json.Unmarshal(b.Call.Args, &args)
		r.Tally.Ledger[0].Task = args.Mission
	}
	tally.add(r.Tally)
	if err != nil { // the child never ran or never closed: close its span here
		r.Outcome = delegation.Outcome{Status: trace.StatusError, Error: message(err)}
		if c.Err() != nil || temporal.IsCanceledError(err) {
			r.Outcome = cancelled()
		}
		if err := workflow.ExecuteActivity(stepCtx(dctx), a.Close, ks.next(), *sr.Child, r.Outcome, (*trace.Run)(nil)).Get(dctx, nil); err != nil {
			return r.Outcome, r.ToolCalls, true
		}
	}
	return r.Outcome, r.ToolCalls, true
}

func cancelled() delegation.Outcome {
	return delegation.Outcome{Status: trace.StatusCancelled, Error: delegation.ErrCancelled.Error()}
}

// collect answers a get_agent_results call: it waits for the agents named
// (or every one the model has not had) without holding a run-wide slot.
func (js *jobs) collect(ctx workflow.Context, ks *keyer, f delegation.Frame, c model.ToolCall) (string, error) {
	ids, ok := delegation.AgentIDs(c)
	var want []*job
	var unknown []delegation.AgentReport
	switch {
	case !ok:
	case len(ids) == 0:
		want = js.uncollected()
	default:
		for _, id := range ids {
			if j := js.byID[id]; j != nil {
				want = append(want, j)
			} else {
				unknown = append(unknown, delegation.UnknownAgent(id))
			}
		}
	}
	since := workflow.Now(ctx)
	reps := append(js.wait(ctx, want), unknown...)
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	var out string
	err := workflow.ExecuteActivity(stepCtx(dctx), a.Collect, ks.next(), f, c, since, reps).Get(dctx, &out)
	return out, err
}

func (js *jobs) uncollected() []*job {
	var left []*job
	for _, j := range js.order {
		if !j.collected {
			left = append(left, j)
		}
	}
	return left
}

// wait waits for want (giving the run-wide slot up meanwhile, so a cap of
// one cannot deadlock the dispatcher and its agents) and returns their
// reports.
func (js *jobs) wait(ctx workflow.Context, want []*job) []delegation.AgentReport {
	if len(want) > 0 {
		giveSlot(ctx)
		_ = workflow.Await(ctx, func() bool { return allDone(want) })
		takeSlot(ctx)
	}
	now := workflow.Now(ctx)
	reps := make([]delegation.AgentReport, 0, len(want))
	for _, j := range want {
		if !j.done {
			reps = append(reps, delegation.AgentReport{AgentID: j.ID, Agent: j.Agent, Status: "running", DurationMS: now.Sub(j.started).Milliseconds()})
			continue
		}
		j.collected = true
		reps = append(reps, delegation.Report(j.ID, j.Agent, j.o, j.calls, j.took))
	}
	return reps
}

// pending reports the agents whose results the model has not had, as
// they stand, for a limit's report.
func (js *jobs) pending(ctx workflow.Context) []delegation.AgentReport {
	now := workflow.Now(ctx)
	var reps []delegation.AgentReport
	for _, j := range js.uncollected() {
		if !j.done {
			reps = append(reps, delegation.AgentReport{AgentID: j.ID, Agent: j.Agent, Status: "running", DurationMS: now.Sub(j.started).Milliseconds()})
			continue
		}
		reps = append(reps, delegation.Report(j.ID, j.Agent, j.o, j.calls, j.took))
	}
	return reps
}

// late waits for the agents the model has not had and returns them as a
// message for one more turn ("" when there are none).
func (js *jobs) late(ctx workflow.Context) string {
	left := js.uncollected()
	if len(left) == 0 {
		return ""
	}
	return delegation.LateResults(js.wait(ctx, left))
}

// Dispatch checks a turn's dispatch tools and background delegations.
func (a *Activities) Dispatch(ctx context.Context, key delegation.Key, f delegation.Frame, calls []model.ToolCall) (delegation.DispatchTurn, error) {
	t, err := a.Steps.Dispatch(ctx, key, f, calls)
	if err != nil {
		return t, temporal.NewNonRetryableApplicationError(err.Error(), "frame", err)
	}
	return t, a.flush(ctx)
}

// StartDispatched starts a dispatched agent.
func (a *Activities) StartDispatched(ctx context.Context, key delegation.Key, f delegation.Frame, j delegation.Job, deps []delegation.Dependency) (StartResult, error) {
	child, ended, err := a.Steps.StartDispatched(ctx, key, f, j, deps)
	if err != nil {
		return StartResult{}, temporal.NewNonRetryableApplicationError(err.Error(), "frame", err)
	}
	return StartResult{Child: child, Ended: ended}, a.flush(ctx)
}

// EndDispatched ends a dispatch with its agent's outcome.
func (a *Activities) EndDispatched(ctx context.Context, key delegation.Key, f delegation.Frame, j delegation.Job, o delegation.Outcome, ran bool, calls int, took time.Duration) (delegation.Outcome, error) {
	o, err := a.Steps.EndDispatched(ctx, key, f, j, o, ran, calls, took)
	if err != nil {
		return o, temporal.NewNonRetryableApplicationError(err.Error(), "frame", err)
	}
	return o, a.flush(ctx)
}

// Collect records a get_agent_results call.
func (a *Activities) Collect(ctx context.Context, key delegation.Key, f delegation.Frame, c model.ToolCall, since time.Time, reps []delegation.AgentReport) (string, error) {
	out, err := a.Steps.Collect(ctx, key, f, c, since, reps)
	if err != nil {
		return "", temporal.NewNonRetryableApplicationError(err.Error(), "frame", err)
	}
	return out, a.flush(ctx)
}
