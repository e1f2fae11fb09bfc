package delegation

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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

// ErrBudget is why a model call was refused after the run's budget tripped.
var ErrBudget = loop.ErrBudget

// RefusedBudget is the AttrRefused kind of a delegation refused because the
// run's budget was spent.
const RefusedBudget = "budget"

// EffectiveBudget is the budget a run of agent works under: for each
// measure the request's (flags) when set, else the tighter of the
// configuration's and the agent file's.
func EffectiveBudget(cfg, agent, req registry.Budget) registry.Budget {
	tight := func(a, b float64) float64 {
		switch {
		case a == 0:
			return b
		case b == 0:
			return a
		}
		return math.Min(a, b)
	}
	pick := func(r, a, b float64) float64 {
		if r > 0 {
			return r
		}
		return tight(a, b)
	}
	return registry.Budget{
		Tokens:    int64(pick(float64(req.Tokens), float64(cfg.Tokens), float64(agent.Tokens))),
		USD:       pick(req.USD, cfg.USD, agent.USD),
		WallClock: time.Duration(pick(float64(req.WallClock), float64(cfg.WallClock), float64(agent.WallClock))),
	}
}

// budget is a run's budget and its ledger of invocations.
type budget struct {
	limit   registry.Budget
	start   time.Time
	tripped atomic.Bool
	timer   *time.Timer

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

// startBudget sets the run's budget; a wall clock starts its timer.
func (rn *run) startBudget(b registry.Budget) {
	rn.budget.limit, rn.budget.start = b, rn.rt.cfg.Now()
	if b.WallClock > 0 {
		rn.budget.timer = time.AfterFunc(b.WallClock, func() {
			rn.trip(fmt.Sprintf("the wall clock budget of %s ran out", b.WallClock))
		})
	}
}

// stopBudget releases the wall clock timer.
func (rn *run) stopBudget() {
	if t := rn.budget.timer; t != nil {
		t.Stop()
	}
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

// budgetSpent is why the run's budget is spent, "" while it is not.
func (rn *run) budgetSpent() string {
	if !rn.budget.tripped.Load() {
		return ""
	}
	rn.budget.mu.Lock()
	defer rn.budget.mu.Unlock()
	return rn.budget.why
}

// checkBudget trips the budget when the run's totals reach it.
func (rn *run) checkBudget(tokens int64, usd float64) {
	l := rn.budget.limit
	switch {
	case l.Tokens > 0 && tokens >= l.Tokens:
		rn.trip(fmt.Sprintf("%d tokens used of a budget of %d", tokens, l.Tokens))
	case l.USD > 0 && usd >= l.USD:
		rn.trip(fmt.Sprintf("$%.4f used of a budget of $%.2f", usd, l.USD))
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
	ledger := make([]LedgerEntry, len(rn.budget.ledger))
	for i, s := range rn.budget.ledger {
		ledger[i] = LedgerEntry{Agent: s.agent, Task: s.task, Depth: s.depth, Tokens: s.tokens.Load(), Status: s.status, Result: s.result, Started: s.started}
	}
	rn.budget.mu.Unlock()
	return BudgetReport(rn.trace.ID, why, tokens, usd, elapsed, ledger)
}

// LedgerEntry is one invocation (or a delegation the budget kept from
// starting) as a budget report lists it; an engine that keeps the ledger
// itself (delegation/temporal) passes its entries to BudgetReport.
type LedgerEntry struct {
	Agent, Task string
	Depth       int
	Tokens      int64        // its own model calls'
	Status      trace.Status // "" while running
	Result      string
	Started     bool
}

// BudgetReport is the partial-progress report of run runID, stopped by its
// budget with why: what was done, what was not, what was used, and what
// finishing would likely take.
func BudgetReport(runID, why string, tokens int64, usd float64, elapsed time.Duration, ledger []LedgerEntry) string {
	var done, notDone []string
	var doneTokens int64
	for _, s := range ledger {
		line := fmt.Sprintf("- %s: %q", s.Agent, loop.OneLine(s.Task, 120))
		if s.Depth == 0 {
			line = fmt.Sprintf("- %s (the root): %q", s.Agent, loop.OneLine(s.Task, 120))
		}
		switch {
		case s.Status == trace.StatusOK:
			done = append(done, line+" → "+loop.OneLine(s.Result, 200))
			doneTokens += s.Tokens
		case !s.Started:
			notDone = append(notDone, line+" (not started: the budget was spent)")
		case s.Status == trace.StatusLimit || s.Status == "":
			notDone = append(notDone, line+" (stopped by the budget)")
		default:
			notDone = append(notDone, line+" ("+string(s.Status)+")")
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The run stopped at its budget: %s.\n", why)
	loop.WriteSections(&b, done, notDone)
	fmt.Fprintf(&b, "\nUsed: %d tokens", tokens)
	if usd > 0 {
		fmt.Fprintf(&b, ", $%.4f", usd)
	}
	fmt.Fprintf(&b, ", %s of wall clock.\n", elapsed.Round(time.Millisecond))
	more := estimate(tokens, doneTokens, len(done), len(notDone))
	fmt.Fprintf(&b, "Estimate to finish: about %d more tokens (%s).\n", more, estimateBasis(tokens, doneTokens, len(done), len(notDone)))
	fmt.Fprintf(&b, "Continue with a larger budget: agentry run --continue %s --budget-tokens %d\n", runID, SuggestTokens(tokens+more))
	return b.String()
}

// estimate is the tokens finishing would likely take: the unfinished
// entries at the average cost of a finished one, or, with nothing
// finished, as much again as was used.
func estimate(used, doneTokens int64, done, notDone int) int64 {
	if done == 0 || doneTokens == 0 {
		return max(used, 1)
	}
	return doneTokens / int64(done) * int64(max(notDone, 1))
}

func estimateBasis(used, doneTokens int64, done, notDone int) string {
	if done == 0 || doneTokens == 0 {
		return "nothing finished yet, so as much again as was used"
	}
	return fmt.Sprintf("%d not done at the %d tokens a finished agent invocation took on average", max(notDone, 1), doneTokens/int64(done))
}

// SuggestTokens rounds a token budget up to two significant digits, the
// figure a report offers to continue with.
func SuggestTokens(n int64) int64 {
	if n <= 100 {
		return 100
	}
	unit := int64(1)
	for n/unit >= 100 {
		unit *= 10
	}
	return (n + unit - 1) / unit * unit
}

// ContinuationTask is the task of a run that continues prev, a run its
// budget stopped: prev's task and its partial-progress report, so the
// agents pick up what was not done (`agentry run --continue RUN_ID`, the
// run page's continue form).
func ContinuationTask(prev trace.Run) string {
	return fmt.Sprintf("%s\n\n---\nThis continues run %s, which stopped at its budget before it finished. Its progress report:\n\n%s\n"+
		"Do what is not done yet. Use the results above instead of doing finished work again.", prev.Task, prev.ID, prev.Result)
}
