package temporal

import (
	"errors"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Names the worker registers and the client starts. They carry the shape
// of the workflow: version 2 drives package loop's machine (driver.go),
// with bookkeeping steps as local activities; a history of version 1 (the
// loop written as workflow code, agentry.Run and agentry.Invocation) is
// served only by a worker of the agentry that started it, never replayed
// against this code.
const (
	RunWorkflowName        = "agentry.Run.v2"
	InvocationWorkflowName = "agentry.Invocation.v2"
)

// RunInput starts a run.
type RunInput struct {
	Run     trace.Run // ID and StartedAt set by the client
	Request delegation.Request
	Timeout time.Duration // the whole run (0 = none)
}

// Tally is what an invocation's subtree used, so the root records the
// run's totals without a shared counter.
type Tally struct {
	Agents                    int
	InputTokens, OutputTokens int64
	CostUSD                   float64
	Ledger                    []control.LedgerEntry // with a budget: every invocation, for its report (budget.go)
}

func (t *Tally) add(o Tally) {
	t.Agents += o.Agents
	t.InputTokens += o.InputTokens
	t.OutputTokens += o.OutputTokens
	t.CostUSD += o.CostUSD
	t.Ledger = append(t.Ledger, o.Ledger...)
}

// InvocationResult is how a child invocation ended.
type InvocationResult struct {
	Outcome   loop.Outcome
	Tally     Tally
	ToolCalls int      // its own, for a dispatched agent's report
	Skills    []string `json:",omitempty"` // the skills it loaded, for its parent's span
}

var a *Activities // method values name the activities in workflow code

// RunResult is how a run ended, with the root agent's messages at its end
// (delegation.Result does not marshal them), so the client records the run
// in its conversation.
type RunResult struct {
	delegation.Result
	Messages []model.Message
}

// RunWorkflow is a run: the root invocation, under the run's timeout, then
// the run's final record. Cancelling the workflow cancels the run.
func RunWorkflow(ctx workflow.Context, in RunInput) (RunResult, error) {
	ks := keys(ctx)
	in.Run.Durable = true // no worker owns it: a reaper must not interrupt it when one ends
	var root RootResult
	err := localStep(ctx, &root, a.Root, ks.next(), in.Run, in.Request)
	if err != nil {
		return RunResult{Result: delegation.Result{RunID: in.Run.ID, Status: trace.StatusError, Error: message(err)}}, nil
	}
	run := in.Run
	run.Agent, run.Task, run.Model = root.Frame.Branch[0], in.Request.Task, root.Frame.Model
	tally := Tally{Agents: 1}
	o := loop.Outcome{}
	if root.Ended != nil {
		o = *root.Ended
	} else {
		limit, why := in.Timeout, delegation.ErrRunTimeout.Error()
		if t := root.Frame.Timeout; t > 0 && (limit == 0 || t < limit) { // the root agent's own timeout
			limit, why = t, agentTimeout(root.Frame)
		}
		var stopRun workflow.CancelFunc // token_budget's stop
		lctx, book := startRootLedger(ctx, root.Frame, func() { stopRun() })
		ictx, stop := workflow.WithCancel(lctx)
		stopRun = stop
		o, _ = drive(ictx, ks, &root.Frame, limit, why, &tally)
		entry(ictx, root.Frame, in.Request.Task, o, &tally)
		o = endRun(ictx, book, run, o, tally) // ledger.go, budget.go
	}
	run.Agents, run.InputTokens, run.OutputTokens, run.CostUSD = tally.Agents, tally.InputTokens, tally.OutputTokens, tally.CostUSD
	conv := root.Frame.Conv
	root.Frame.Conv = nil // Close does not read it
	if err := localStep(ctx, &o, a.Close, ks.next(), root.Frame, o, &run); err != nil {
		return RunResult{}, err
	}
	id := in.Request.Conversation
	if id == "" {
		id = run.ID
	}
	return RunResult{Result: delegation.Result{RunID: run.ID, Status: o.Status, Result: o.Result, Error: o.Error, Conversation: id,
		Limit: delegation.StoppedBy(o.Status, o.Error)}, Messages: conv}, nil
}

// InvocationWorkflow is one delegated invocation: its loop, then its close.
func InvocationWorkflow(ctx workflow.Context, f delegation.Frame) (InvocationResult, error) {
	ks := keys(ctx)
	tally := Tally{}
	ctx = joinLedger(ctx, f)
	g := f // the loop grows its conversation; Close takes the frame as it began
	o, calls := drive(ctx, ks, &g, f.Timeout, agentTimeout(f), &tally)
	f.Span = g.Span              // with the events the loop recorded on it
	f.Skills = g.Skills          // with what it loaded
	endLease(ctx)                // ledger.go
	entry(ctx, f, "", o, &tally) // the parent knows the task
	f.Conv = nil                 // Close does not read it
	err := localStep(ctx, &o, a.Close, ks.next(), f, o, (*trace.Run)(nil))
	if f.FlowStep {
		giveSlot(ctx) // its workflow run's slot, reserved before it started (workflows_caps.go)
	}
	return InvocationResult{Outcome: o, Tally: tally, ToolCalls: calls, Skills: f.Loaded()}, err
}

func message(err error) string {
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		return ae.Message()
	}
	return err.Error()
}

// agentTimeout is the error of an invocation that hit its agent's timeout,
// worded as in-process (delegation.AgentTimedOut).
func agentTimeout(f delegation.Frame) string {
	return delegation.AgentTimedOut(f.Branch[len(f.Branch)-1], f.Timeout).Error()
}
