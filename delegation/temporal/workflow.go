package temporal

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
)

// Names the worker registers and the client starts.
const (
	RunWorkflowName        = "agentry.Run"
	InvocationWorkflowName = "agentry.Invocation"
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
	Ledger                    []delegation.LedgerEntry // with a budget: every invocation, for its report (budget.go)
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
	Outcome   delegation.Outcome
	Tally     Tally
	ToolCalls int // its own, for a dispatched agent's report
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
	in.Run.Durable = true                           // no worker owns it: a reaper must not interrupt it when one ends
	dctx, _ := workflow.NewDisconnectedContext(ctx) // a Root that completes as the run is cancelled is still closed
	var root RootResult
	err := workflow.ExecuteActivity(stepCtx(dctx), a.Root, ks.next(), in.Run, in.Request).Get(dctx, &root)
	if err != nil {
		return RunResult{Result: delegation.Result{RunID: in.Run.ID, Status: trace.StatusError, Error: message(err)}}, nil
	}
	run := in.Run
	run.Agent, run.Task, run.Model = root.Frame.Branch[0], in.Request.Task, root.Frame.Model
	tally := Tally{Agents: 1}
	o := delegation.Outcome{}
	if root.Ended != nil {
		o = *root.Ended
	} else {
		limit, why := in.Timeout, delegation.ErrRunTimeout.Error()
		if t := root.Frame.Schedule.Timeout; t > 0 && (limit == 0 || t < limit) { // the root agent's own timeout
			limit, why = t, agentTimeout(root.Frame)
		}
		var stopRun workflow.CancelFunc // token_budget's stop
		lctx, book := startRootLedger(ctx, root.Frame, func() { stopRun() })
		ictx, stop := workflow.WithCancel(lctx)
		stopRun = stop
		o, _ = invoke(ictx, ks, &root.Frame, limit, why, &tally)
		entry(ictx, root.Frame, in.Request.Task, o, &tally)
		o = endRun(ictx, book, run, o, tally) // ledger.go, budget.go
	}
	run.Agents, run.InputTokens, run.OutputTokens, run.CostUSD = tally.Agents, tally.InputTokens, tally.OutputTokens, tally.CostUSD
	conv := root.Frame.Conv
	root.Frame.Conv = nil // Close does not read it
	if err := workflow.ExecuteActivity(stepCtx(dctx), a.Close, ks.next(), root.Frame, o, &run).Get(dctx, &o); err != nil {
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
	g := f // invoke grows its conversation; Close takes the frame as it began
	o, calls := invoke(ctx, ks, &g, f.Schedule.Timeout, agentTimeout(f), &tally)
	f.Span = g.Span              // with the events invoke recorded on it
	endLease(ctx)                // ledger.go
	entry(ctx, f, "", o, &tally) // the parent knows the task
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	err := workflow.ExecuteActivity(stepCtx(dctx), a.Close, ks.next(), f, o, (*trace.Run)(nil)).Get(dctx, &o)
	if f.FlowStep {
		giveSlot(ctx) // its workflow run's slot, reserved before it started (workflows_caps.go)
	}
	return InvocationResult{Outcome: o, Tally: tally, ToolCalls: calls}, err
}

// invoke plays the agent loop of f (model turn, tool calls, batch,
// background agents) and returns how it ended and how many tool calls it
// made. timeout (0 = none) ends it with status timeout and why; cancelling
// ctx ends it cancelled.
func invoke(ctx workflow.Context, ks *keyer, f *delegation.Frame, timeout time.Duration, why string, tally *Tally) (_ delegation.Outcome, used int) {
	ctx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	js := newJobs(ctx)
	defer js.stop(ctx) // before cancel: it ends the agents itself and waits for them
	timedOut := false
	if timeout > 0 {
		workflow.Go(ctx, func(c workflow.Context) {
			if workflow.NewTimer(c, timeout).Get(c, nil) == nil {
				timedOut = true
				cancel()
			}
		})
	}
	stopped := func(err error) delegation.Outcome {
		switch {
		case timedOut:
			return delegation.Outcome{Status: trace.StatusTimeout, Error: why}
		case ctx.Err() != nil || temporal.IsCanceledError(err):
			return delegation.Outcome{Status: trace.StatusCancelled, Error: delegation.ErrCancelled.Error()}
		case temporal.IsTimeoutError(err):
			return delegation.Outcome{Status: trace.StatusTimeout, Error: message(err)}
		}
		return delegation.Outcome{Status: trace.StatusError, Error: message(err)}
	}
	var last string
	for turn := 0; turn < f.Schedule.MaxTurns; turn++ {
		if o, stop := budgetStop(ctx); stop { // no model call starts once the budget is spent
			return o, used
		}
		usd := tally.CostUSD
		resp, err := chat(ctx, ks, f, tally)
		if err != nil {
			return stopped(err), used
		}
		tally.InputTokens += resp.InputTokens
		tally.OutputTokens += resp.OutputTokens
		spend(ctx, resp.InputTokens+resp.OutputTokens, tally.CostUSD-usd)
		if resp.Text != "" {
			last = resp.Text
		}
		f.Conv = append(f.Conv, model.Message{Role: model.RoleAssistant, Content: resp.Text, ToolCalls: resp.ToolCalls})
		if len(resp.ToolCalls) == 0 {
			if late := js.late(ctx); late != "" { // a text answer while agents still run is not the last word
				f.Conv = append(f.Conv, model.Message{Role: model.RoleUser, Content: late})
				continue
			}
			return delegation.Answered(resp.Text), used
		}
		n, why := delegation.ToolCallCap(used, len(resp.ToolCalls), f.MaxToolCalls) // a dispatched agent's max_tool_calls
		if w := delegation.LoopLimitWhy(*f, turn); w != "" {                        // an orchestrator's last turn
			n, why = 0, w
		}
		if g, w := turnCalls(ctx, *f, n); g < n { // and its dispatcher's limits.turn_tool_calls (dispatch.go)
			n, why = g, w
		}
		calls, notRun, wwhy := window(ctx, resp.ToolCalls[:n]) // limits.window_calls over the run (ledger.go)
		if wwhy != "" {
			why = wwhy
		} else if why != "" {
			notRun = "not run: " + why
		}
		used += len(calls)
		results, err := execute(ctx, ks, *f, calls, js, tally)
		if err != nil || ctx.Err() != nil {
			return stopped(err), used
		}
		for i, c := range resp.ToolCalls {
			out := notRun
			if i < len(calls) {
				out = results[i]
			}
			f.Conv = append(f.Conv, model.Message{Role: model.RoleTool, ToolCallID: c.ID, Content: out})
		}
		if why != "" { // the invoke_agent span gets the in-process limit event
			dctx, _ := workflow.NewDisconnectedContext(ctx)
			attrs := map[string]any{delegation.EventAttrReason: why}
			if err := workflow.ExecuteActivity(stepCtx(dctx), a.Event, ks.next(), f.Span, delegation.EventLimit, attrs, time.Time{}).Get(dctx, &f.Span); err != nil {
				return stopped(err), used
			}
			return delegation.Outcome{Status: trace.StatusLimit, Result: delegation.Progress(f.Conv, last, why, js.pending(ctx)), Error: why}, used
		}
		if landed := js.landing(ctx, resp.ToolCalls); landed != "" { // parallel_streaming (stream.go)
			f.Conv = append(f.Conv, model.Message{Role: model.RoleUser, Content: landed})
		}
	}
	return delegation.TurnLimit(*f, last, js.pending(ctx)), used // as in-process: status limit with the work so far
}

// chat makes one model turn, retrying transient errors as the agent's retry
// policy says, with durable timers between attempts. Temporal's own retries
// cover only a lost worker: they repeat the same attempt.
func chat(ctx workflow.Context, ks *keyer, f *delegation.Frame, tally *Tally) (*model.Response, error) {
	for attempt := 0; ; attempt++ {
		var r TurnResult
		if err := workflow.ExecuteActivity(callCtx(ctx, f.Schedule.Timeout), a.Turn, ks.next(), *f, attempt).Get(ctx, &r); err != nil {
			return nil, err
		}
		if r.Err == nil {
			tally.CostUSD += r.CostUSD
			f.Calls += attempt + 1
			return r.Response, nil
		}
		if !r.Err.Transient || attempt+1 >= f.Schedule.Attempts {
			return nil, errors.New(r.Err.Err)
		}
		if err := workflow.Sleep(ctx, time.Duration(r.Err.Wait)*time.Millisecond); err != nil {
			return nil, err
		}
	}
}

// execute runs one turn's tool calls as in-process: plain tools in order,
// each an activity; the dispatch tools and background delegations
// (dispatch.go); the delegate calls as one batch of child workflows; then
// get_agent_results.
func execute(ctx workflow.Context, ks *keyer, f delegation.Frame, calls []model.ToolCall, js *jobs, tally *Tally) ([]string, error) {
	results := make([]string, len(calls))
	async, err := dispatchTurn(ctx, ks, f, calls, js, results, tally)
	if err != nil {
		return nil, err
	}
	var batch []int
	for i, c := range calls {
		switch {
		case async != nil && async[i]:
			continue
		case c.Name == delegation.DelegateTool:
			batch = append(batch, i)
			continue
		}
		idem := f.RunID + "/" + f.Span.ID + "/" + c.ID
		if err := tool(ctx, ks.next(), f, c, idem, &results[i]); err != nil { // approval.go
			return nil, err
		}
	}
	if len(batch) > 0 {
		if err := runBatch(ctx, ks, f, calls, batch, results, tally); err != nil {
			return nil, err
		}
	}
	for i, c := range calls {
		if async != nil && async[i] && c.Name == delegation.GetAgentResultsTool {
			if results[i], err = js.collect(ctx, ks, f, c); err != nil {
				return nil, err
			}
		}
	}
	return results, nil
}

func message(err error) string {
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		return ae.Message()
	}
	return err.Error()
}

// agentTimeout is the error of an invocation that hit its agent's timeout,
// worded as in-process.
func agentTimeout(f delegation.Frame) string {
	return fmt.Sprintf("%v: %s after %s", delegation.ErrAgentTimeout, f.Branch[len(f.Branch)-1], f.Schedule.Timeout)
}
