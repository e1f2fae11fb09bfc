package temporal

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
)

// Budgets on Temporal (docs/temporal.md, "Budgets"). The root workflow
// holds the run's ledger. Before each model call and each delegation an
// invocation workflow asks the root (a signal) whether the budget is spent,
// reporting what its model calls used since it last asked, and waits for
// the root's answer (a signal back); the root adds, checks and answers, so
// no model call starts after the trip, as in-process, whichever workflow
// spent the budget. The wall clock is a timer of the root. An invocation
// whose next model call the budget refuses ends with status limit, and a
// Delegate step refuses as in-process. What each invocation did is carried
// up with its result (Tally.Ledger), so the root writes the in-process
// partial-progress report (delegation.BudgetReport). Signals and timers are
// history: a budget survives a killed worker like the rest of the run. Only
// a run with a budget pays for this: one round trip to the root per model
// call and per delegation.

const (
	budgetAskSignal    = "budget-ask"    // to the root: what was spent, and is the budget spent?
	budgetAnswerSignal = "budget-answer" // to the asker: why the budget is spent, "" if it is not
)

// Spent is what model calls used.
type Spent struct {
	Tokens int64
	USD    float64
}

// BudgetAsk is a child's question to the root; BudgetAnswer the reply.
type BudgetAsk struct {
	From  string // the asking workflow's ID
	Seq   int
	Spent Spent
}

// BudgetAnswer answers the BudgetAsk of the same Seq.
type BudgetAnswer struct {
	Seq   int
	Spent string // why the budget is spent; "" while it is not
}

// budgetState is one workflow's view of the run's budget.
type budgetState struct {
	spent   string // why the budget tripped, as last heard; "" while it has not
	own     int64  // tokens of this workflow's own model calls
	pending Spent  // used since the last ask
	ask     func(workflow.Context, Spent) string
}

type budgetKey struct{}

func budgetOf(ctx workflow.Context) *budgetState {
	st, _ := ctx.Value(budgetKey{}).(*budgetState)
	return st
}

// rootBudget starts the ledger of a run whose root frame has a budget and
// returns ctx carrying it.
func rootBudget(ctx workflow.Context, f delegation.Frame) workflow.Context {
	l := f.Budget
	if l.IsZero() {
		return ctx
	}
	st := &budgetState{}
	var total Spent
	trip := func(why string) {
		if st.spent == "" {
			st.spent = why
		}
	}
	st.ask = func(_ workflow.Context, n Spent) string { // the in-process checks and words (delegation/budget.go)
		total.Tokens += n.Tokens
		total.USD += n.USD
		switch {
		case l.Tokens > 0 && total.Tokens >= l.Tokens:
			trip(fmt.Sprintf("%d tokens used of a budget of %d", total.Tokens, l.Tokens))
		case l.USD > 0 && total.USD >= l.USD:
			trip(fmt.Sprintf("$%.4f used of a budget of $%.2f", total.USD, l.USD))
		}
		return st.spent
	}
	asks := workflow.GetSignalChannel(ctx, budgetAskSignal)
	workflow.Go(ctx, func(c workflow.Context) {
		for {
			var q BudgetAsk
			asks.Receive(c, &q)
			why := st.ask(c, q.Spent)
			workflow.SignalExternalWorkflow(c, q.From, "", budgetAnswerSignal, BudgetAnswer{Seq: q.Seq, Spent: why})
		}
	})
	if l.WallClock > 0 {
		workflow.Go(ctx, func(c workflow.Context) {
			if workflow.NewTimer(c, l.WallClock).Get(c, nil) == nil {
				trip(fmt.Sprintf("the wall clock budget of %s ran out", l.WallClock))
			}
		})
	}
	return workflow.WithValue(ctx, budgetKey{}, st)
}

// joinBudget gives an invocation workflow of a budgeted run its way to ask
// the root, and returns ctx carrying it. Its asks go one at a time (a
// batch's delegations ask concurrently), each waiting for its own answer.
func joinBudget(ctx workflow.Context, f delegation.Frame) workflow.Context {
	if f.Budget.IsZero() {
		return ctx
	}
	st := &budgetState{}
	self := workflow.GetInfo(ctx).WorkflowExecution.ID
	answers := workflow.GetSignalChannel(ctx, budgetAnswerSignal)
	one := workflow.NewBufferedChannel(ctx, 1)
	seq := 0
	st.ask = func(c workflow.Context, n Spent) string {
		one.Send(c, true)
		defer one.ReceiveAsync(nil)
		seq++
		q := BudgetAsk{From: self, Seq: seq, Spent: n}
		if err := workflow.SignalExternalWorkflow(c, f.RunID, "", budgetAskSignal, q).Get(c, nil); err != nil {
			return st.spent // cancelled, or the root is gone: nothing more starts anyway
		}
		for {
			var a BudgetAnswer
			done := false
			s := workflow.NewSelector(c)
			s.AddReceive(answers, func(ch workflow.ReceiveChannel, _ bool) { ch.Receive(c, &a) })
			s.AddReceive(c.Done(), func(workflow.ReceiveChannel, bool) { done = true })
			s.Select(c)
			if done {
				return st.spent
			}
			if a.Seq == q.Seq {
				if a.Spent != "" {
					st.spent = a.Spent
				}
				return st.spent
			}
		}
	}
	return workflow.WithValue(ctx, budgetKey{}, st)
}

// askBudget reports what was spent since the last ask and returns why the
// budget is spent ("" while it is not, and for a run without a budget).
func askBudget(ctx workflow.Context) string {
	st := budgetOf(ctx)
	if st == nil {
		return ""
	}
	n := st.pending
	st.pending = Spent{}
	return st.ask(ctx, n)
}

// budgetStop is the outcome of an invocation whose next model call the
// spent budget refuses.
func budgetStop(ctx workflow.Context) (delegation.Outcome, bool) {
	why := askBudget(ctx)
	if why == "" {
		return delegation.Outcome{}, false
	}
	return delegation.Outcome{Status: trace.StatusLimit, Error: fmt.Sprintf("%v: %s", delegation.ErrBudget, why)}, true
}

// spend notes a model call's tokens and priced cost, reported at the next ask.
func spend(ctx workflow.Context, tokens int64, usd float64) {
	if st := budgetOf(ctx); st != nil {
		st.own += tokens
		st.pending.Tokens += tokens
		st.pending.USD += usd
	}
}

// budgetSpent is why the budget is spent, for a Delegate step's frame.
func budgetSpent(ctx workflow.Context) string { return askBudget(ctx) }

// entry is an invocation's line of the ledger, put first in its tally.
func entry(ctx workflow.Context, f delegation.Frame, task string, o delegation.Outcome, tally *Tally) {
	st := budgetOf(ctx)
	if st == nil {
		return
	}
	if st.pending != (Spent{}) { // the last calls count before the root reports
		askBudget(ctx)
	}
	e := delegation.LedgerEntry{Agent: f.Branch[len(f.Branch)-1], Task: task, Depth: f.Depth, Tokens: st.own,
		Status: o.Status, Result: o.Result, Started: true}
	tally.Ledger = append([]delegation.LedgerEntry{e}, tally.Ledger...)
}

// notStarted adds a delegation the spent budget refused to the ledger.
func notStarted(ctx workflow.Context, f delegation.Frame, c string, tally *Tally) {
	if budgetOf(ctx) == nil {
		return
	}
	var args struct{ Agent, Task string }
	_ = json.Unmarshal([]byte(c), &args)
	tally.Ledger = append(tally.Ledger, delegation.LedgerEntry{Agent: args.Agent, Task: args.Task, Depth: f.Depth + 1})
}

// budgetReport replaces the root's outcome with the partial-progress report
// when the budget stopped the run, as in-process.
func budgetReport(ctx workflow.Context, run trace.Run, o delegation.Outcome, tally Tally) delegation.Outcome {
	st := budgetOf(ctx)
	if st == nil || st.spent == "" || o.Status == trace.StatusOK {
		return o
	}
	start := run.StartedAt
	if start.IsZero() {
		start = workflow.GetInfo(ctx).WorkflowStartTime
	}
	elapsed := workflow.Now(ctx).Sub(start)
	report := delegation.BudgetReport(run.ID, st.spent, tally.InputTokens+tally.OutputTokens, tally.CostUSD, elapsed, tally.Ledger)
	return delegation.Outcome{Status: trace.StatusLimit, Result: report, Error: "budget spent: " + st.spent}
}

// delegateTask is a delegate call's task, for its ledger entry.
func delegateTask(c model.ToolCall) string {
	var args struct{ Task string }
	_ = json.Unmarshal(c.Args, &args)
	return args.Task
}
