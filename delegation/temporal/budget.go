package temporal

import (
	"encoding/json"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
	"go.temporal.io/sdk/workflow"
)

// Budgets on Temporal (docs/temporal.md, "Budgets and run-wide caps"). The
// budget is counted by the run's ledger (ledger.go): before each model call
// and each delegation an invocation workflow reports what its calls used
// since it last asked and learns whether the budget is spent, so no model
// call starts after the trip, as in-process, whichever workflow spent it.
// An invocation whose next model call the budget refuses ends with status
// limit, and a Delegate step refuses as in-process. What each invocation did
// is carried up with its result (Tally.Ledger), so the root writes the
// in-process partial-progress report (control.BudgetReport).

// budgeted reports whether ctx's run has a budget.
func budgeted(ctx workflow.Context) bool {
	l := ledgerOf(ctx)
	return l != nil && !l.limits.Budget.IsZero()
}

// askBudget says whether the loop asks the ledger before each model call
// (loop.ActBudget): the run has a budget, or a token_budget, whose
// ledger hears the tokens spent with each ask.
func askBudget(ctx workflow.Context) bool {
	l := ledgerOf(ctx)
	return l != nil && (!l.limits.Budget.IsZero() || l.limits.Caps.TokenBudget > 0)
}

// spend notes a model call's tokens and priced cost. Under a budget or a
// token_budget they are reported at once, as in-process counts them over
// the run when the call ends: kept for the next ask, a sibling's ask (or
// the next delegation's) would not see them, and the run would stop a model
// call later than in-process (a row of the engine cases showed it).
func spend(ctx workflow.Context, tokens int64, usd float64) {
	l := ledgerOf(ctx)
	if l == nil {
		return
	}
	l.own += tokens
	l.pending.Tokens += tokens
	l.pending.USD += usd
	if askBudget(ctx) && workflow.GetVersion(ctx, "spend-at-once", workflow.DefaultVersion, 1) == 1 {
		askLedger(ctx, LedgerAsk{NoReply: true})
	}
}

// budgetSpent is why the budget is spent, for a Delegate step's frame.
func budgetSpent(ctx workflow.Context) string {
	if !budgeted(ctx) {
		return ""
	}
	return askLedger(ctx, LedgerAsk{}).Budget
}

// entry reports an invocation's last calls and, with a budget, puts its
// line of the ledger first in its tally.
func entry(ctx workflow.Context, f delegation.Frame, task string, o loop.Outcome, tally *Tally) {
	l := ledgerOf(ctx)
	if l == nil {
		return
	}
	if l.pending != (Spent{}) { // the last calls count before the root ends
		askLedger(ctx, LedgerAsk{NoReply: true})
	}
	if !budgeted(ctx) {
		return
	}
	e := control.LedgerEntry{Agent: f.Branch[len(f.Branch)-1], Task: task, Depth: f.Depth, Tokens: l.own,
		Status: o.Status, Result: o.Result, Started: true}
	tally.Ledger = append([]control.LedgerEntry{e}, tally.Ledger...)
}

// notStarted adds a delegation the spent budget refused to the ledger.
func notStarted(ctx workflow.Context, f delegation.Frame, c model.ToolCall, tally *Tally) {
	if !budgeted(ctx) {
		return
	}
	var args struct{ Agent, Task string }
	_ = json.Unmarshal(c.Args, &args)
	tally.Ledger = append(tally.Ledger, control.LedgerEntry{Agent: args.Agent, Task: args.Task, Depth: f.Depth + 1})
}

// endRun is the root's outcome after the ledger's say: token_budget's
// error, or the partial-progress report when the budget stopped the run.
func endRun(ctx workflow.Context, r *rootLedger, run trace.Run, o loop.Outcome, tally Tally) loop.Outcome {
	switch {
	case r == nil:
		return o
	case r.over != "":
		return loop.Outcome{Status: trace.StatusError, Error: r.over}
	case r.spent == "" || o.Status == trace.StatusOK:
		return o
	}
	start := run.StartedAt
	if start.IsZero() {
		start = workflow.GetInfo(ctx).WorkflowStartTime
	}
	elapsed := workflow.Now(ctx).Sub(start)
	report := control.BudgetReport(run.ID, r.spent, tally.InputTokens+tally.OutputTokens, tally.CostUSD, elapsed, tally.Ledger)
	return loop.Outcome{Status: trace.StatusLimit, Result: report, Error: "budget spent: " + r.spent}
}
