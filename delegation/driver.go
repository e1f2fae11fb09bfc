package delegation

import (
	"context"
	"slices"
	"sync"

	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/orchestrator"
	"github.com/agentry/agentry/delegation/sched"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// The in-process driver of the loop (package loop). It steps the machine
// on the invocation's goroutine and carries out each action with the
// invocation's methods: on the spot when nothing else could be answered
// meanwhile (a lone model call, tool call or delegation, which is most of
// a plain tree), on a goroutine of its own otherwise (a batch's calls,
// everything while background agents run), whose result comes back on a
// channel. The machine decides; the driver only does.

// driver is one invocation's in-process driver.
type driver struct {
	inv      *invocation
	ctx      context.Context
	done     <-chan struct{}
	m        *loop.Machine   // kept with the driver: a pointer, so resetting the driver does not copy it
	events   chan loop.Event // results of actions done on goroutines
	queue    []loop.Event    // results of actions done on the spot
	inflight int
	stopped  bool

	items     []*delegation // the turn's batch, by item id
	itemsTurn int
	dels      []delegation // where items live: reused turn after turn
	jobs      []jobRef     // background agents, by job number
	jctx      context.Context
	jcancel   context.CancelCauseFunc
	turns     map[int]*sched.TurnCalls // what the agents each turn dispatched share
	collects  map[int]*span            // get_agent_results spans by call index
	// spot is the work of the action done on the spot. It lives here, not
	// in do's frame: a lone child's model call runs under do, and on a
	// child's goroutine every byte of frame counts (package doc).
	spot work
}

// jobRef is what the driver holds of a background agent: the delegation of
// a background delegate call, or a dispatch and its span.
type jobRef struct {
	d  *delegation
	ds *orchestrator.Dispatch
	sp *span
}

// drive runs the invocation's loop to its end and returns how it ended.
func drive(ctx context.Context, inv *invocation) loop.Outcome {
	d := drivers.Get().(*driver)
	d.reset(ctx, inv)
	defer d.release()
	acts := d.m.Start()
	for {
		last := lastEffect(acts)
		for i := range acts {
			a := &acts[i]
			if a.Kind == loop.ActEnd {
				inv.conv, inv.toolCalls = d.m.Conv(), d.m.Used()
				if d.jcancel != nil {
					d.jcancel(nil)
				}
				return a.Outcome
			}
			d.do(a, i == last)
		}
		acts = d.m.Step(d.next())
	}
}

// drivers keep drivers for reuse: a tree of many short invocations would
// otherwise make a driver and a machine for each.
var drivers = sync.Pool{New: func() any { return &driver{} }}

func (d *driver) reset(ctx context.Context, inv *invocation) {
	clear(d.items)
	clear(d.jobs)
	clear(d.dels)
	m := d.m
	if m == nil {
		m = new(loop.Machine)
	}
	*d = driver{inv: inv, ctx: ctx, done: ctx.Done(), itemsTurn: -1, m: m,
		queue: d.queue[:0], items: d.items[:0], jobs: d.jobs[:0], dels: d.dels[:0]}
	m.Reset(inv.spec(), inv.conv)
}

// release gives the driver back for reuse, unless the loop panicked with
// actions still under way: then it waits for those on a goroutine of its
// own, so theirs end and their spans are recorded, and drops the driver.
func (d *driver) release() {
	if d.inflight == 0 {
		d.inv, d.ctx, d.jctx, d.jcancel = nil, nil, nil, nil
		d.m.Reset(loop.Spec{}, nil)
		drivers.Put(d)
		return
	}
	if d.jcancel != nil {
		d.jcancel(loop.ErrDispatcherEnded)
	}
	go func(n int) {
		for range n {
			<-d.events
		}
	}(d.inflight)
}

// lastEffect is the index of the last action in acts that an event
// answers (-1: none).
func lastEffect(acts []loop.Action) int {
	for i := len(acts) - 1; i >= 0; i-- {
		switch acts[i].Kind {
		case loop.ActOpen, loop.ActOpenCall, loop.ActQueued, loop.ActAdmitted, loop.ActRelease, loop.ActLimit, loop.ActStopJobs, loop.ActEnd:
		default:
			return i
		}
	}
	return -1
}

// next is the next event: one done on the spot, else the next from a
// goroutine, or the context's end.
func (d *driver) next() loop.Event {
	if len(d.queue) > 0 {
		ev := d.queue[0]
		d.queue = d.queue[:copy(d.queue, d.queue[1:])] // keeps the array: the queue is refilled every turn
		return d.stamp(ev)
	}
	if d.inflight == 0 {
		panic("loop: waiting with nothing under way")
	}
	var ev loop.Event
	if d.stopped {
		ev = <-d.events
		d.inflight--
		return d.stamp(ev)
	}
	select {
	case ev = <-d.events:
		d.inflight--
	case <-d.done:
		ev = loop.Event{Kind: loop.EvStop}
	}
	return d.stamp(ev)
}

// stamp puts the run's stop on the first event after the context ended,
// and the clock on events when the machine needs it.
func (d *driver) stamp(ev loop.Event) loop.Event {
	if !d.stopped {
		select {
		case <-d.done:
			d.stopped = true
			o := failed(d.ctx, context.Cause(d.ctx))
			ev.Stop = &o
		default:
		}
	}
	if ev.At.IsZero() && d.m.Clocked() {
		ev.At = d.inv.rn.rt.cfg.Now()
	}
	return ev
}

// work is an action with what carrying it out reads of the loop, taken on
// the loop's goroutine, so an action done on a goroutine of its own never
// reads the machine or the driver's tables.
type work struct {
	a    loop.Action
	ctx  context.Context
	it   *loop.Item
	dl   *delegation // a batch or background delegate call
	job  jobRef
	conv []model.Message
	call model.ToolCall
	turn *sched.TurnCalls // the budget a dispatched agent's tool calls count in
}

// do carries out one action: on the spot, or on a goroutine when it may
// block while other results could come in.
func (d *driver) do(a *loop.Action, last bool) {
	switch a.Kind {
	case loop.ActOpen:
		d.inv.begin(d.batchCall(a.Item))
		return
	case loop.ActOpenCall:
		d.openCall(a.Index)
		return
	case loop.ActQueued, loop.ActAdmitted:
		d.inv.waited(d.delegationOf(a.Item), a)
		return
	case loop.ActRelease:
		if inv := d.inv; inv.slot {
			inv.rn.global.Release()
			inv.slot = false
		}
		return
	case loop.ActLimit:
		d.inv.span.event(EventLimit, map[string]any{EventAttrReason: a.Why})
		return
	case loop.ActStopJobs:
		d.jcancel(loop.ErrDispatcherEnded)
		return
	}
	if d.onTheSpot(a, last) {
		d.capture(a, &d.spot)
		ev := d.perform(&d.spot)
		d.spot = work{} // holds nothing of the action once it is done
		d.queue = append(d.queue, ev)
		return
	}
	if d.events == nil {
		d.events = make(chan loop.Event, 8)
	}
	d.inflight++
	w := new(work)
	d.capture(a, w)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				d.events <- failedAction(&w.a, recovered("the loop's driver", v))
			}
		}()
		d.events <- d.perform(w)
	}()
}

// capture puts in w what an action reads of the loop and the driver.
func (d *driver) capture(a *loop.Action, w *work) {
	w.a, w.ctx = *a, d.ctx
	switch a.Kind {
	case loop.ActModel:
		w.conv = d.m.Conv()
	case loop.ActTool, loop.ActCollect:
		w.call = d.m.Call(a.Index)
	case loop.ActRefuse, loop.ActCheck, loop.ActAdmit, loop.ActSlot, loop.ActRun, loop.ActFinish:
		w.it = d.m.Item(a.Item)
		if a.Item >= 0 {
			w.dl = d.batchCall(a.Item)
			w.dl.conv = d.m.Conv()
			break
		}
		w.ctx, w.job = d.jctx, d.jobs[^a.Item]
		w.dl = w.job.d
		if w.it.Kind == loop.Dispatch {
			w.turn = d.turnBudget(w.it.Turn)
		}
	}
}

// onTheSpot says whether an action is done on the loop's goroutine: quick
// ones always; a wait for a run-wide slot unless background agents run
// (in-process a batch always waited there); a long call only when nothing
// else is under way, so nothing could be answered meanwhile.
func (d *driver) onTheSpot(a *loop.Action, last bool) bool {
	switch a.Kind {
	case loop.ActBudget, loop.ActCalls, loop.ActAsync, loop.ActRefuse, loop.ActCheck, loop.ActFinish, loop.ActCollect:
		return true
	case loop.ActAdmit, loop.ActSlot, loop.ActAcquire:
		return !d.m.JobsLive()
	}
	return last && d.inflight == 0 && !d.m.JobsLive()
}

// perform carries out an action that an event answers.
func (d *driver) perform(w *work) loop.Event {
	inv, a := d.inv, &w.a
	switch a.Kind {
	case loop.ActModel:
		ev := inv.attempt(w.ctx, inv.span.s.ID, &inv.req, w.conv, model.PurposeTurn, a.Attempt, a.Retry)
		if ev.Kind == loop.EvModel {
			ev.Resp.ToolCalls = inv.callIDs(ev.Resp.ToolCalls)
		}
		return ev
	case loop.ActSleep:
		_ = inv.rn.rt.cfg.Sleep(w.ctx, a.Wait)
		return loop.Event{Kind: loop.EvWoke}
	case loop.ActBudget:
		return loop.Event{Kind: loop.EvBudget, Why: inv.rn.budgetSpent()}
	case loop.ActCalls:
		n, why := inv.grant(a.N)
		return loop.Event{Kind: loop.EvGranted, N: n, Why: why}
	case loop.ActTool:
		return loop.Event{Kind: loop.EvTool, Index: a.Index, Text: inv.callTool(w.ctx, w.call)}
	case loop.ActAsync:
		return d.async(a)
	case loop.ActCollect:
		return loop.Event{Kind: loop.EvTool, Index: a.Index, Text: inv.endCollect(d.collects[a.Index], a)}
	case loop.ActAcquire:
		if err := inv.rn.global.Acquire(w.ctx); err == nil {
			inv.slot = true
		}
		return loop.Event{Kind: loop.EvSlotBack}
	}
	if w.it.Kind == loop.Dispatch {
		return inv.dispatchStep(w)
	}
	return inv.delegationStep(w)
}

// failedAction is the event of an action whose goroutine panicked.
func failedAction(a *loop.Action, pe *PanicError) loop.Event {
	o := loop.Outcome{Status: trace.StatusError, Error: pe.Error()}
	switch a.Kind {
	case loop.ActModel:
		return loop.Event{Kind: loop.EvModelFailed, Outcome: o}
	case loop.ActSleep:
		return loop.Event{Kind: loop.EvWoke}
	case loop.ActTool:
		return loop.Event{Kind: loop.EvTool, Index: a.Index, Text: "error: " + pe.Error()}
	case loop.ActAcquire:
		return loop.Event{Kind: loop.EvSlotBack}
	}
	return loop.Event{Kind: loop.EvDone, Item: a.Item, Outcome: o, Text: "error: " + pe.Error()}
}

// batchCall is the delegation of a batch call, made when the driver first
// meets it in its turn. A turn's delegations are over before the next
// turn begins (the machine waits for every EvDone), so the next turn's
// reuse their memory: a parent of many one-call turns allocates none.
func (d *driver) batchCall(id int) *delegation {
	it := d.m.Item(id)
	if it.Turn != d.itemsTurn {
		clear(d.dels) // what the last turn's delegations held goes
		n := d.m.BatchLen()
		d.items, d.dels, d.itemsTurn = slices.Grow(d.items[:0], n)[:n], slices.Grow(d.dels[:0], n), it.Turn
		clear(d.items)
	}
	if d.items[id] == nil {
		d.dels = append(d.dels, newDelegation(it)) // within the capacity grown for the batch: no turn reallocates
		d.items[id] = &d.dels[len(d.dels)-1]
	}
	return d.items[id]
}

// delegationOf is the delegation a queued or admitted event goes on.
func (d *driver) delegationOf(id int) *delegation {
	if id >= 0 {
		return d.batchCall(id)
	}
	return d.jobs[^id].d
}

// async runs the turn's async calls (dispatch.go) and keeps what it holds
// of the agents they start.
func (d *driver) async(a *loop.Action) loop.Event {
	if d.jctx == nil {
		d.jctx, d.jcancel = context.WithCancelCause(d.ctx)
	}
	results, jobs, refs := d.inv.startAsync(d.m.Calls(), a.Indexes, a.Stream, d.m.JobIDs())
	for _, r := range refs { // a background delegation's context mode reads the conversation as asked (loop.Item.Conv)
		if r.d != nil {
			r.d.conv = slices.Clone(d.m.Conv())
		}
	}
	d.jobs = append(d.jobs, refs...)
	return loop.Event{Kind: loop.EvAsync, Results: results, Jobs: jobs}
}

// openCall opens a get_agent_results call's span as its wait begins.
func (d *driver) openCall(i int) {
	if d.collects == nil {
		d.collects = map[int]*span{}
	}
	c := d.m.Call(i)
	d.collects[i] = d.inv.rn.startSpan(trace.KindExecuteTool, "execute_tool "+loop.GetAgentResultsTool, d.inv.span.s.ID, d.inv.agent.Name, d.inv.depth,
		map[string]any{semconv.AttrToolName: loop.GetAgentResultsTool, semconv.AttrToolArguments: string(c.Args)})
}

// grant asks for n tool calls under the dispatcher's per-turn cap and the
// conversation's window.
func (inv *invocation) grant(n int) (int, string) {
	var why string
	if g, w := inv.turnOf.Take(n); g < n {
		n, why = g, w
	}
	if g, w := inv.rn.rt.windows.Take(inv.rn.limits, inv.rn.conversation, n, inv.rn.rt.cfg.Now()); g < n {
		n, why = g, w
	}
	return n, why
}

// turnBudget is the budget the agents dispatched in one model turn share.
func (d *driver) turnBudget(turn int) *sched.TurnCalls {
	if d.turns == nil {
		d.turns = map[int]*sched.TurnCalls{}
	}
	b := d.turns[turn]
	if b == nil {
		b = &sched.TurnCalls{Limit: d.inv.limits().TurnToolCalls}
		d.turns[turn] = b
	}
	return b
}
