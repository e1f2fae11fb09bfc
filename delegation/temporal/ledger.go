package temporal

import (
	"fmt"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/orchestrator"
	"go.temporal.io/sdk/workflow"
)

// The run's ledger (docs/temporal.md, "Budgets and run-wide caps"): what
// the in-process runtime counts in one process for the whole tree (the
// budget, delegation.max_concurrent, max_agents_per_run, token_budget) is
// counted by the root workflow. Every other workflow of the run asks it by
// signal (ledgerSignal) and waits for its answer (ledgerAnswerSignal), so
// every decision is taken in the order the asks reach the root's history:
// deterministic, durable, and the same whichever branch asks. A run
// without a budget or caps sends nothing.

const (
	ledgerSignal       = "ledger-ask"    // to the root: a LedgerAsk
	ledgerAnswerSignal = "ledger-answer" // to the asker: a LedgerAnswer
)

// Spent is what model calls used.
type Spent struct {
	Tokens int64
	USD    float64
}

// LedgerAsk is a workflow's question to the root: it reports Spent, and
// reserves (+1) or gives back (-1) an agent under max_agents_per_run and a
// slot under max_concurrent. A slot it asks for is answered when one is
// free, in the order asked. NoReply is for giving back.
type LedgerAsk struct {
	From    string // the asking workflow's ID
	Seq     int
	Spent   Spent
	Agent   int
	Slot    int
	Calls   int // tool calls a turn asks to make under limits.window_calls
	NoReply bool
	// Unused calls of the asker's window lease, given back with its next
	// window ask or, EndLease, when it ends (leases below).
	Unused   int
	EndLease bool
}

// LedgerAnswer answers the LedgerAsk of the same Seq.
type LedgerAnswer struct {
	Seq    int
	Budget string    // why the budget is spent; "" while it is not
	Over   string    // why token_budget stopped the run; "" while it has not
	Agent  bool      // the agent asked for was reserved
	Slot   bool      // a slot asked for is the asker's
	Queued time.Time // when a slot ask joined the line, in the root's time (zero: it did not wait)
	Calls  int       // of the tool calls asked for, how many may run
	Window string    // why the others may not
	Lease  int       // more calls the asker may make without asking, before Until
	Until  time.Time
}

// ledger is one workflow's way to the run's ledger.
type ledger struct {
	limits  delegation.Frame // Budget and Caps
	spent   string           // why the budget tripped, as last heard
	own     int64            // tokens of this workflow's own model calls
	pending Spent            // used since the last ask
	ask     func(workflow.Context, LedgerAsk) LedgerAnswer
	lease   int       // window calls it may still make without asking
	until   time.Time // when the lease ends (zero: it never had one)
}

type ledgerKey struct{}

func ledgerOf(ctx workflow.Context) *ledger {
	l, _ := ctx.Value(ledgerKey{}).(*ledger)
	return l
}

func counted(f delegation.Frame) bool {
	return !f.Budget.IsZero() || f.Caps != (delegation.RunCaps{})
}

// rootLedger is the root's book: totals, agents, free slots and the line
// of workflows waiting for one.
type rootLedger struct {
	f       delegation.Frame
	total   Spent
	agents  int
	free    int
	line    []func(LedgerAnswer)
	spent   string // why the budget tripped
	over    string // why token_budget stopped the run
	stopRun func()
	now     func() time.Time
	start   time.Time           // when the run's wall clock started
	win     orchestrator.Window // limits.window_calls over the run, as in-process
	leases  map[string]lease    // live window leases by workflow ID
}

// lease is a workflow's window calls granted ahead, usable before until.
type lease struct {
	n     int
	until time.Time
}

func (r *rootLedger) trip(why string) {
	if r.spent == "" {
		r.spent = why
	}
}

// handle takes one ask and calls reply with its answer: at once, or for a
// slot when one is free.
func (r *rootLedger) handle(q LedgerAsk, reply func(LedgerAnswer)) {
	l, caps := r.f.Budget, r.f.Caps
	r.total.Tokens += q.Spent.Tokens
	r.total.USD += q.Spent.USD
	if why := control.Spent(l, r.total.Tokens, r.total.USD); why != "" { // the in-process rule and words
		r.trip(why)
	}
	if why := control.ClockSpent(l, r.now().Sub(r.start)); why != "" { // not only when the timer below fires
		r.trip(why)
	}
	if b := caps.TokenBudget; b > 0 && r.total.Tokens > b && r.over == "" {
		r.over = fmt.Sprintf("%v: %d tokens used of %d", delegation.ErrTokenBudget, r.total.Tokens, b)
		r.stopRun()
	}
	a := LedgerAnswer{Seq: q.Seq}
	if q.Calls > 0 || q.EndLease {
		r.endLease(q.From, q.Unused)
	}
	if q.Calls > 0 {
		a.Calls, a.Window = r.window(q.Calls)
		if q.From != "" && a.Window == "" {
			a.Lease, a.Until = r.lease(q.From)
		}
	}
	switch {
	case q.Agent > 0:
		a.Agent = caps.MaxAgents == 0 || r.agents < caps.MaxAgents
		if a.Agent {
			r.agents++
		}
	case q.Agent < 0:
		r.agents--
	}
	switch {
	case q.Slot < 0 && len(r.line) > 0:
		next := r.line[0]
		r.line = r.line[1:]
		next(LedgerAnswer{Budget: r.spent, Over: r.over, Slot: true})
	case q.Slot < 0:
		r.free++
	case q.Slot > 0 && r.free > 0 && len(r.line) == 0:
		r.free--
		a.Slot = true
	case q.Slot > 0:
		at := r.now()
		r.line = append(r.line, func(g LedgerAnswer) { g.Seq, g.Queued = q.Seq, at; reply(g) })
		return
	}
	a.Budget, a.Over = r.spent, r.over
	if !q.NoReply {
		reply(a)
	}
}

// startRootLedger starts the ledger of a run whose root frame f has a
// budget or caps, and returns ctx carrying it. stopRun cancels the run
// (token_budget); the book says why.
func startRootLedger(ctx workflow.Context, f delegation.Frame, stopRun func()) (workflow.Context, *rootLedger) {
	if !counted(f) {
		return ctx, nil
	}
	r := &rootLedger{f: f, agents: 1, free: f.Caps.MaxConcurrent - 1, stopRun: stopRun, // the root is an agent and holds a slot
		now: func() time.Time { return workflow.Now(ctx) }, start: workflow.Now(ctx)}
	asks := workflow.GetSignalChannel(ctx, ledgerSignal)
	workflow.Go(ctx, func(c workflow.Context) {
		for {
			var q LedgerAsk
			asks.Receive(c, &q)
			r.handle(q, func(a LedgerAnswer) { workflow.SignalExternalWorkflow(c, q.From, "", ledgerAnswerSignal, a) })
		}
	})
	if w := f.Budget.WallClock; w > 0 {
		workflow.Go(ctx, func(c workflow.Context) {
			if workflow.NewTimer(c, w).Get(c, nil) == nil {
				r.trip(control.WallClockSpent(w))
			}
		})
	}
	l := &ledger{limits: f}
	l.ask = func(c workflow.Context, q LedgerAsk) LedgerAnswer {
		fut, set := workflow.NewFuture(c)
		r.handle(q, func(a LedgerAnswer) { set.Set(a, nil) })
		if q.NoReply {
			return LedgerAnswer{Budget: r.spent}
		}
		var a LedgerAnswer
		if waitFuture(c, fut, &a) != nil {
			return LedgerAnswer{Budget: r.spent}
		}
		l.spent = a.Budget
		return a
	}
	return workflow.WithValue(ctx, ledgerKey{}, l), r
}

// joinLedger gives an invocation workflow of a counted run its way to the
// root's ledger, and returns ctx carrying it. Its goroutines may ask at
// once (a batch's delegations); each waits for the answer of its own Seq.
// A slot granted to an ask that stopped waiting (cancelled) is given back.
func joinLedger(ctx workflow.Context, f delegation.Frame) workflow.Context {
	if !counted(f) {
		return ctx
	}
	l := &ledger{limits: f}
	self := workflow.GetInfo(ctx).WorkflowExecution.ID
	waiting := map[int]workflow.Settable{}
	seq := 0
	answers := workflow.GetSignalChannel(ctx, ledgerAnswerSignal)
	send := func(c workflow.Context, q LedgerAsk) error {
		return workflow.SignalExternalWorkflow(c, f.RunID, "", ledgerSignal, q).Get(c, nil)
	}
	workflow.Go(ctx, func(c workflow.Context) {
		for {
			var a LedgerAnswer
			answers.Receive(c, &a)
			if s := waiting[a.Seq]; s != nil {
				delete(waiting, a.Seq)
				s.Set(a, nil)
			} else if a.Slot {
				dc, _ := workflow.NewDisconnectedContext(c)
				_ = send(dc, LedgerAsk{From: self, Slot: -1, NoReply: true})
			}
		}
	})
	l.ask = func(c workflow.Context, q LedgerAsk) LedgerAnswer {
		seq++
		q.From, q.Seq = self, seq
		if q.NoReply {
			dc, _ := workflow.NewDisconnectedContext(c) // a release must reach the root
			_ = send(dc, q)
			return LedgerAnswer{Budget: l.spent}
		}
		fut, set := workflow.NewFuture(c)
		waiting[q.Seq] = set
		if err := send(c, q); err != nil {
			delete(waiting, q.Seq)
			return LedgerAnswer{Budget: l.spent}
		}
		var a LedgerAnswer
		if waitFuture(c, fut, &a) != nil {
			delete(waiting, q.Seq)
			return LedgerAnswer{Budget: l.spent}
		}
		if a.Budget != "" {
			l.spent = a.Budget
		}
		return a
	}
	return workflow.WithValue(ctx, ledgerKey{}, l)
}

// waitFuture waits for f, or for ctx to end (then it returns ctx's error).
func waitFuture(ctx workflow.Context, f workflow.Future, v any) error {
	var err error
	s := workflow.NewSelector(ctx)
	s.AddFuture(f, func(f workflow.Future) { err = f.Get(ctx, v) })
	s.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) { err = ctx.Err() })
	s.Select(ctx)
	return err
}

// askLedger reports what was spent since the last ask with q and returns
// the answer; without a ledger it grants everything.
func askLedger(ctx workflow.Context, q LedgerAsk) LedgerAnswer {
	l := ledgerOf(ctx)
	if l == nil {
		return LedgerAnswer{Agent: true, Slot: true}
	}
	q.Spent, l.pending = l.pending, Spent{}
	return l.ask(ctx, q)
}

// reserveAgent asks for an agent under max_agents_per_run before a
// Delegate step: false makes the step refuse as in-process.
func reserveAgent(ctx workflow.Context) bool {
	if l := ledgerOf(ctx); l == nil || l.limits.Caps.MaxAgents == 0 {
		return true
	}
	return askLedger(ctx, LedgerAsk{Agent: 1}).Agent
}

// giveBackAgent returns a reserved agent whose delegation did not start.
func giveBackAgent(ctx workflow.Context) {
	if l := ledgerOf(ctx); l != nil && l.limits.Caps.MaxAgents > 0 {
		askLedger(ctx, LedgerAsk{Agent: -1, NoReply: true})
	}
}

// takeSlot waits for a slot under max_concurrent; false when the wait was
// cut short (cancelled).
func takeSlot(ctx workflow.Context) bool {
	ok, _ := takeSlotAt(ctx)
	return ok
}

// takeSlotAt is takeSlot that also says when the ask joined the line
// (zero: a slot was free), for the queued and admitted events.
func takeSlotAt(ctx workflow.Context) (bool, time.Time) {
	if l := ledgerOf(ctx); l == nil || l.limits.Caps.MaxConcurrent == 0 {
		return true, time.Time{}
	}
	a := askLedger(ctx, LedgerAsk{Slot: 1})
	return a.Slot, a.Queued
}

// giveSlot gives a slot back.
func giveSlot(ctx workflow.Context) {
	if l := ledgerOf(ctx); l != nil && l.limits.Caps.MaxConcurrent > 0 {
		askLedger(ctx, LedgerAsk{Slot: -1, NoReply: true})
	}
}

// window grants up to n tool calls under limits.window_calls with the
// in-process window's arithmetic, in workflow time. A live lease's calls
// count as made.
func (r *rootLedger) window(n int) (int, string) {
	r.win.Limit, r.win.Span = r.f.Caps.WindowCalls, r.f.Caps.Window
	var free time.Time // when the calls of the first lease to end leave the window
	for _, l := range r.leases {
		if t := l.until.Add(r.win.Span); free.IsZero() || t.Before(free) {
			free = t
		}
	}
	return r.win.Take(n, r.now(), r.leased(), free)
}

// Window leases: a child workflow would ask the root once per tool-calling
// turn (a signal round trip, some 70 ms per turn on the development
// server). While the window is at most half used, a granted ask also gets
// a lease of a tenth of the window's calls, usable for a tenth of its span
// without asking. The root counts a live lease's calls as made until the
// lease is given back (with the next ask or at the workflow's end); then
// the calls used on it count as made at the lease's end, the latest they
// can have been made, so the window never lets more calls through than
// in-process. Near the limit no lease is granted and every call is asked
// for; a lease granted earlier holds its unused calls for at most a tenth
// of the span.

// lease grants from a lease if the window has room for one.
func (r *rootLedger) lease(from string) (int, time.Time) {
	limit := r.f.Caps.WindowCalls
	n := min(max(limit/10, 1), limit/2-r.win.Used(r.now())-r.leased())
	if n <= 0 {
		return 0, time.Time{}
	}
	if r.leases == nil {
		r.leases = map[string]lease{}
	}
	l := lease{n: n, until: r.now().Add(r.f.Caps.Window / 10)}
	r.leases[from] = l
	return l.n, l.until
}

// endLease ends from's lease, of which unused calls were not made.
func (r *rootLedger) endLease(from string, unused int) {
	l, ok := r.leases[from]
	if !ok {
		return
	}
	delete(r.leases, from)
	r.win.Made(l.n-unused, l.until)
}

func (r *rootLedger) leased() int {
	n := 0
	for _, l := range r.leases {
		n += l.n
	}
	return n
}

// window lets n of a turn's tool calls through limits.window_calls: how
// many may run, and why the others may not ("" when all may). Calls
// within the workflow's lease run without asking.
func window(ctx workflow.Context, n int) (int, string) {
	l := ledgerOf(ctx)
	if l == nil || l.limits.Caps.WindowCalls == 0 || n == 0 {
		return n, ""
	}
	if l.lease >= n && workflow.Now(ctx).Before(l.until) {
		l.lease -= n
		return n, ""
	}
	a := askLedger(ctx, LedgerAsk{Calls: n, Unused: l.lease})
	l.lease, l.until = a.Lease, a.Until
	if a.Window == "" {
		return n, ""
	}
	return a.Calls, a.Window
}

// endLease gives the workflow's unused window lease back as it ends.
func endLease(ctx workflow.Context) {
	if l := ledgerOf(ctx); l != nil && !l.until.IsZero() {
		askLedger(ctx, LedgerAsk{EndLease: true, Unused: l.lease, NoReply: true})
		l.lease, l.until = 0, time.Time{}
	}
}
