package delegation

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// Budgets (DESIGN §10). A run's budget counts tokens, priced USD and wall
// clock over its whole tree. When one is spent the budget trips: no model
// call starts after that (chat refuses with ErrBudget) and no delegation
// starts (refused as RefusedBudget), while calls already running finish.
// Every branch then ends with status limit as its next model call is
// refused, and the root's answer is replaced by a partial-progress report
// (report, after seed 001 §7.4's "Continue?" pattern): what was done, what
// was not, what was used, and an estimate of what finishing would take.
// Only a budget stop replaces the answer; a run that ended ok keeps it.
// Workflow sessions are not budgeted here.

// RefusedBudget is the AttrRefused kind of a delegation refused because the
// run's budget was spent.
const RefusedBudget = "budget"

// budget is a run's budget and its ledger of invocations.
type budget struct {
	limit   registry.Budget
	start   time.Time
	tripped atomic.Bool

	mu     sync.Mutex
	why    string
	ledger []*spent // every invocation and refused delegation, in start order
}

// spent is one entry of the ledger: an agent invocation, or a delegation
// the budget kept from starting.
type spent struct {
	agent, task string
	depth       int
	tokens      atomic.Int64
	status      trace.Status // "" while running
	result      string
	started     bool
}

// startBudget sets the run's budget and starts its wall clock.
func (rn *run) startBudget(b registry.Budget) {
	rn.budget.limit, rn.budget.start = b, rn.rt.cfg.Now()
}

// trip spends the budget with why; the first reason stays.
func (rn *run) trip(why string) {
	b := &rn.budget
	b.mu.Lock()
	if b.why == "" {
		b.why = why
		rn.rt.cfg.Logger.Info("budget spent", "run", rn.trace.ID, "why", why)
	}
	b.mu.Unlock()
	b.tripped.Store(true)
}

// budgetSpent is why the run's budget is spent, "" while it is not. It
// reads the wall clock on every ask (control.ClockSpent says why), when
// the budget has a wall clock.
func (rn *run) budgetSpent() string {
	if !rn.budget.tripped.Load() {
		if rn.budget.limit.WallClock <= 0 {
			return ""
		}
		why := control.ClockSpent(rn.budget.limit, rn.rt.cfg.Now().Sub(rn.budget.start))
		if why == "" {
			return ""
		}
		rn.trip(why)
	}
	rn.budget.mu.Lock()
	defer rn.budget.mu.Unlock()
	return rn.budget.why
}

// checkBudget trips the budget when the run's totals reach it.
func (rn *run) checkBudget(tokens int64, usd float64) {
	if why := control.Spent(rn.budget.limit, tokens, usd); why != "" {
		rn.trip(why)
	}
}

// addCost adds a priced chat call to the run's cost; addTokens, which
// follows it, records the run and checks the budget.
func (rn *run) addCost(usd float64) {
	rn.mu.Lock()
	rn.trace.CostUSD += usd
	rn.mu.Unlock()
}

// track adds an invocation to the ledger.
//
// A run without a budget never reports, so it keeps no ledger: nil, whose
// methods do nothing, instead of an entry (with its result) per invocation
// of a run that may have tens of thousands.
func (rn *run) track(agent, task string, depth int) *spent {
	if rn.budget.limit.IsZero() {
		return nil
	}
	s := &spent{agent: agent, task: task, depth: depth, started: true}
	rn.budget.mu.Lock()
	rn.budget.ledger = append(rn.budget.ledger, s)
	rn.budget.mu.Unlock()
	return s
}

// notStarted records a delegation the budget kept from starting.
func (rn *run) notStarted(agent, task string, depth int) {
	rn.budget.mu.Lock()
	rn.budget.ledger = append(rn.budget.ledger, &spent{agent: agent, task: task, depth: depth, status: trace.StatusLimit})
	rn.budget.mu.Unlock()
}

// end records how an invocation ended.
func (s *spent) end(o loop.Outcome, rn *run) {
	if s == nil {
		return
	}
	rn.budget.mu.Lock()
	s.status, s.result = o.Status, o.Result
	rn.budget.mu.Unlock()
}

// addTokens counts tokens the invocation's model calls used.
func (s *spent) addTokens(n int64) {
	if s != nil {
		s.tokens.Add(n)
	}
}

// report is the partial-progress report of a run stopped by its budget.
func (rn *run) report(why string) string {
	rn.mu.Lock()
	tokens, usd := rn.trace.InputTokens+rn.trace.OutputTokens, rn.trace.CostUSD
	rn.mu.Unlock()
	elapsed := rn.rt.cfg.Now().Sub(rn.budget.start)
	rn.budget.mu.Lock()
	ledger := make([]control.LedgerEntry, len(rn.budget.ledger))
	for i, s := range rn.budget.ledger {
		ledger[i] = control.LedgerEntry{Agent: s.agent, Task: s.task, Depth: s.depth, Tokens: s.tokens.Load(), Status: s.status, Result: s.result, Started: s.started}
	}
	rn.budget.mu.Unlock()
	return control.BudgetReport(rn.trace.ID, why, tokens, usd, elapsed, ledger)
}
