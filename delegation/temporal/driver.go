package temporal

import (
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
	"go.temporal.io/sdk/workflow"
)

// The Temporal driver of the loop (package loop): an invocation workflow
// steps the machine and carries out each action as workflow code. A model
// call and a tool call are activities; a delegation is a child workflow
// between two local activities (its checks, its start; its finish); the
// run-wide caps and the budget are asked of the root's ledger (ledger.go);
// everything that only records (spans, events, refusals) is a local
// activity. Every action runs on a workflow goroutine of its own and
// reports its event on a channel, so the machine hears results in the
// order the history replays them. The machine decides; the driver only
// does.

// driver is one invocation workflow's driver.
type driver struct {
	ctx      workflow.Context // the invocation's: its timeout and cancellation end it
	ks       *keyer
	f        *delegation.Frame // its conversation kept as the machine's
	m        *loop.Machine
	tally    *Tally
	events   workflow.Channel
	inflight int
	stopped  bool
	stopAs   *loop.Outcome // how it ends once stopped
	timedOut bool
	why      string // the agent's timeout, in in-process words
	calls    int    // model calls made, retries included

	items     map[int]*item // the turn's batch, by item id
	itemsTurn int
	jobs      []*item // background agents, by job number
	jctx      workflow.Context
	jcancel   workflow.CancelFunc
	jobsEnded bool              // ActStopJobs: the invocation ended under them
	collects  map[int]time.Time // when each get_agent_results call began to wait
	turnCalls map[int]int       // tool calls of the agents each turn dispatched (turncalls.go)
	listening bool
}

// item is what the driver holds of a delegation between its steps: its
// record (delegation.Delegation), from when its span opened.
type item struct{ rec delegation.Delegation }

// drive plays the loop of f and returns how it ended and how many tool
// calls it ran. timeout (0 = none) ends it with status timeout and why;
// cancelling ctx ends it cancelled.
func drive(ctx workflow.Context, ks *keyer, f *delegation.Frame, timeout time.Duration, why string, tally *Tally) (loop.Outcome, int) {
	ctx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	d := &driver{ctx: ctx, ks: ks, f: f, tally: tally, why: why, itemsTurn: -1, calls: f.Calls}
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	d.events = workflow.NewChannel(dctx)
	if timeout > 0 {
		f.Deadline, f.Cut = workflow.Now(ctx).Add(timeout), why // its calls end at the deadline as in-process
		workflow.Go(ctx, func(c workflow.Context) {
			if workflow.NewTimer(c, timeout).Get(c, nil) == nil {
				d.timedOut = true
				cancel()
			}
		})
	}
	spec := f.Spec
	spec.AskBudget = askBudget(ctx)
	spec.AskCalls = f.Caps.WindowCalls > 0 || f.TurnCalls > 0 && workflow.GetInfo(ctx).ParentWorkflowExecution != nil
	d.m = loop.New(spec, f.Conv)
	acts := d.m.Start()
	for {
		for i := range acts {
			if acts[i].Kind == loop.ActEnd {
				f.Conv = d.m.Conv()
				return acts[i].Outcome, d.m.Used()
			}
			d.do(acts[i])
		}
		acts = d.m.Step(d.next())
	}
}

// next is the next event an action's goroutine reports (do), or the
// invocation's end. Unlike the in-process driver, this one does no action
// on the spot that answers with an event, so it keeps no queue of them.
func (d *driver) next() loop.Event {
	if d.inflight == 0 {
		panic("loop: waiting with nothing under way")
	}
	var ev loop.Event
	dctx, _ := workflow.NewDisconnectedContext(d.ctx)
	s := workflow.NewSelector(dctx)
	s.AddReceive(d.events, func(c workflow.ReceiveChannel, _ bool) {
		c.Receive(dctx, &ev)
		d.inflight--
	})
	if !d.stopped {
		s.AddReceive(d.ctx.Done(), func(workflow.ReceiveChannel, bool) { ev = loop.Event{Kind: loop.EvStop} })
	}
	s.Select(dctx)
	return d.stamp(ev)
}

// stamp puts the invocation's stop on the first event after its context
// ended, and the workflow's clock on events when the machine needs it.
func (d *driver) stamp(ev loop.Event) loop.Event {
	if !d.stopped && d.ctx.Err() != nil {
		d.stopped = true
		o := d.stop()
		ev.Stop = &o
	}
	if d.m.Clocked() {
		ev.At = workflow.Now(d.ctx)
	}
	return ev
}

// stop is how the invocation ends once its context ended: its timeout, the
// run's token_budget (the root's ledger stops the run, and says why when
// asked), or the run's cancellation, in in-process words.
func (d *driver) stop() loop.Outcome {
	switch {
	case d.stopAs != nil:
		return *d.stopAs
	case d.timedOut:
		d.stopAs = &loop.Outcome{Status: trace.StatusTimeout, Error: d.why}
	case d.f.Caps.TokenBudget > 0:
		dctx, _ := workflow.NewDisconnectedContext(d.ctx)
		if over := askLedger(dctx, LedgerAsk{}).Over; over != "" {
			d.stopAs = &loop.Outcome{Status: trace.StatusError, Error: over}
			break
		}
		fallthrough
	default:
		o := cancelled()
		d.stopAs = &o
	}
	return *d.stopAs
}

func cancelled() loop.Outcome {
	return loop.Outcome{Status: trace.StatusCancelled, Error: delegation.ErrCancelled.Error()}
}

// do carries out one action: the ones that record only, on the spot; the
// others on a goroutine that reports the action's event.
func (d *driver) do(a loop.Action) {
	switch a.Kind {
	case loop.ActOpen:
		d.batch(a.Item).rec.Opened = workflow.Now(d.ctx)
		return
	case loop.ActOpenCall:
		if d.collects == nil {
			d.collects = map[int]time.Time{}
		}
		d.collects[a.Index] = workflow.Now(d.ctx)
		return
	case loop.ActQueued, loop.ActAdmitted:
		d.waited(d.ctx, a.Item, a.Cap, a.Limit, a.Kind == loop.ActQueued, time.Time{})
		return
	case loop.ActRelease:
		giveSlot(d.ctx)
		return
	case loop.ActLimit:
		d.record(d.ctx, &d.f.Span, delegation.EventLimit, map[string]any{delegation.EventAttrReason: a.Why}, time.Time{})
		return
	case loop.ActStopJobs:
		d.jobsEnded = true
		d.jcancel()
		return
	}
	ctx, w := d.ctx, d.capture(a)
	if a.Item < 0 && w.it != nil {
		ctx = d.jctx
	}
	d.inflight++
	workflow.Go(ctx, func(c workflow.Context) {
		d.events.Send(c, d.perform(c, w))
	})
}

// work is an action with what carrying it out reads of the loop, taken
// when the action is given.
type work struct {
	a    loop.Action
	it   *loop.Item
	held *item
	f    delegation.Frame
	call model.ToolCall // ActTool, ActCollect
}

func (d *driver) capture(a loop.Action) work {
	w := work{a: a, f: *d.f}
	w.f.Conv, w.f.Calls = d.m.Conv(), d.calls
	switch a.Kind {
	case loop.ActRefuse, loop.ActCheck, loop.ActAdmit, loop.ActSlot, loop.ActRun, loop.ActFinish:
		it := *d.m.Item(a.Item)
		w.it = &it
		if a.Item >= 0 {
			w.held = d.batch(a.Item)
		} else {
			w.held = d.jobs[^a.Item]
		}
	}
	switch a.Kind {
	case loop.ActModel:
		d.calls++ // each attempt is a call, whether it succeeds or not
	case loop.ActTool, loop.ActCollect:
		w.call = d.m.Call(a.Index)
	}
	return w
}

// batch is what the driver holds of batch call id of the turn under way.
func (d *driver) batch(id int) *item {
	if t := d.m.Item(id).Turn; t != d.itemsTurn {
		d.items, d.itemsTurn = map[int]*item{}, t
	}
	it := d.items[id]
	if it == nil {
		it = &item{}
		d.items[id] = it
	}
	return it
}

// record adds an event to a span the driver holds, through a local
// activity, waiting on ctx (the calling goroutine's), so later steps write
// the span with it.
func (d *driver) record(ctx workflow.Context, sp *trace.Span, name string, attrs map[string]any, at time.Time) {
	_ = localStep(ctx, sp, a.Event, d.ks.next(), *sp, name, attrs, at)
}

// waited records on an item's span that it joined (queued) or left a
// line: the loop's ActQueued and ActAdmitted, and the run-wide cap's.
func (d *driver) waited(ctx workflow.Context, id int, capName string, limit int, queued bool, at time.Time) {
	var held *item
	if id >= 0 {
		held = d.batch(id)
	} else {
		held = d.jobs[^id]
	}
	d.waitedOn(ctx, held, capName, limit, queued, at)
}

func (d *driver) waitedOn(ctx workflow.Context, held *item, capName string, limit int, queued bool, at time.Time) {
	attrs := map[string]any{semconv.EventAttrCap: capName, semconv.EventAttrLimit: limit}
	if capName == semconv.CapAgent || capName == semconv.CapTurn {
		attrs[semconv.EventAttrAgent] = d.f.Branch[len(d.f.Branch)-1]
	}
	name := semconv.EventAdmitted
	if queued {
		name = semconv.EventQueued
	}
	d.record(ctx, &held.rec.Span, name, attrs, at)
}
