package control

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

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

// Spent is why budget l is spent by tokens and usd used over a run's tree
// ("" while it is not): the words of every engine's budget.
func Spent(l registry.Budget, tokens int64, usd float64) string {
	switch {
	case l.Tokens > 0 && tokens >= l.Tokens:
		return fmt.Sprintf("%d tokens used of a budget of %d", tokens, l.Tokens)
	case l.USD > 0 && usd >= l.USD:
		return fmt.Sprintf("$%.4f used of a budget of $%.2f", usd, l.USD)
	}
	return ""
}

// WallClockSpent is why a wall clock budget of d is spent.
func WallClockSpent(d time.Duration) string {
	return fmt.Sprintf("the wall clock budget of %s ran out", d)
}

// ClockSpent is why budget l is spent after elapsed of a run's wall clock
// ("" while it is not). Every engine compares the clock each time it asks
// whether a model call may start, rather than waiting for a timer to trip
// the budget: a timer's callback is one more goroutine (or workflow event)
// that a loaded scheduler may run after the model call it should have
// stopped.
func ClockSpent(l registry.Budget, elapsed time.Duration) string {
	if l.WallClock > 0 && elapsed >= l.WallClock {
		return WallClockSpent(l.WallClock)
	}
	return ""
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
		line := fmt.Sprintf("- %s: %q", s.Agent, OneLine(s.Task, 120))
		if s.Depth == 0 {
			line = fmt.Sprintf("- %s (the root): %q", s.Agent, OneLine(s.Task, 120))
		}
		switch {
		case s.Status == trace.StatusOK:
			done = append(done, line+" → "+OneLine(s.Result, 200))
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
	WriteSections(&b, done, notDone)
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
