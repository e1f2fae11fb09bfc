package temporal

import (
	"encoding/json"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// runBatch runs the delegate calls at idxs of calls as the in-process
// batch does: delegation.PlanBatch links depends_on, a call starts when
// its dependencies have ended, at most max_concurrent at once (one at a
// time when sequential), each checked by a Delegate activity and run as a
// child workflow.
func runBatch(ctx workflow.Context, ks *keyer, f delegation.Frame, calls []model.ToolCall, idxs []int, results []string, tally *Tally) error {
	batch := make([]model.ToolCall, len(idxs))
	for i, idx := range idxs {
		batch[i] = calls[idx]
	}
	plan := delegation.PlanBatch(batch)
	outcomes := make([]*delegation.Dependency, len(batch))
	pending := make([]int, len(batch))
	var ready []int
	for i, p := range plan {
		pending[i] = len(p.Deps)
		if p.ArgErr != "" || pending[i] == 0 {
			ready = append(ready, i)
		}
	}
	// While the batch runs the agent gives up its run-wide slot, so waiting
	// parents never starve their own children of the cap (as in-process).
	giveSlot(ctx)
	defer takeSlot(ctx)
	limit := f.Schedule.MaxConcurrent
	if f.Schedule.Sequential {
		limit = 1
	}
	done := workflow.NewChannel(ctx)
	running, left := 0, len(batch)
	queued := make([]time.Time, len(batch)) // when a ready call began to wait for the agent's max_concurrent
	var firstErr error
	for left > 0 {
		for len(ready) > 0 && running < limit {
			i := ready[0]
			ready = ready[1:]
			running++
			deps := make([]delegation.Dependency, 0, len(plan[i].Deps))
			for _, d := range plan[i].Deps {
				deps = append(deps, *outcomes[d])
			}
			key := ks.next()
			w := waitedFor(queued[i], f, plan[i].ArgErr)
			workflow.Go(ctx, func(c workflow.Context) {
				out, err := delegate(c, ks, key, f, batch[i], deps, plan[i].ArgErr, w, tally)
				results[idxs[i]] = out
				if err != nil && firstErr == nil {
					firstErr = err
				}
				done.Send(c, i)
			})
		}
		for _, i := range ready { // in-process a ready call joins the agent's line at once (sequential: no line)
			if queued[i].IsZero() && !f.Schedule.Sequential {
				queued[i] = workflow.Now(ctx)
			}
		}
		var i int
		done.Receive(ctx, &i)
		running--
		left--
		outcomes[i] = dependency(batch[i], results[idxs[i]])
		for j, p := range plan {
			for _, d := range p.Deps {
				if d == i {
					if pending[j]--; pending[j] == 0 && p.ArgErr == "" {
						ready = append(ready, j)
					}
				}
			}
		}
	}
	return firstErr
}

// delegate checks one call, runs its child workflow and finishes it, and
// returns the result the parent's model reads. The bookkeeping steps run
// on a disconnected context: a step that completes as the run is cancelled
// must still be seen, or the spans it opened would stay open.
func delegate(ctx workflow.Context, ks *keyer, key delegation.Key, f delegation.Frame, c model.ToolCall, deps []delegation.Dependency, argErr string, waited []agentWait, tally *Tally) (string, error) {
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	f.BudgetSpent = budgetSpent(ctx)  // a spent budget refuses the delegation (budget.go)
	f.AgentsFull = !reserveAgent(ctx) // and so does max_agents_per_run (ledger.go)
	var dr DelegateResult
	if err := workflow.ExecuteActivity(stepCtx(dctx), a.Delegate, key, f, c, deps, argErr).Get(dctx, &dr); err != nil {
		return "", err
	}
	if dr.Asked != nil { // the target needs approval (approval.go)
		if err := answeredDelegate(ctx, key, f, c, deps, argErr, *dr.Asked, &dr); err != nil {
			return "", err
		}
	}
	if dr.Delegation == nil {
		if !f.AgentsFull {
			giveBackAgent(ctx)
		}
		if f.BudgetSpent != "" {
			notStarted(ctx, f, c, tally)
		}
		return dr.Refused, nil
	}
	tally.Agents++
	d := *dr.Delegation
	d.Child.Budget, d.Child.Caps = f.Budget, f.Caps
	var r InvocationResult
	err := ctx.Err()
	for _, w := range waited {
		if err == nil {
			err = admitted(dctx, ks, &d, w.since, w.cap, w.limit, w.agent)
		}
	}
	if err == nil { // delegation.max_concurrent over the tree (ledger.go)
		ok, queued := takeSlotAt(ctx)
		if !ok {
			err = ctx.Err()
		} else if !queued.IsZero() {
			err = admitted(dctx, ks, &d, queued, semconv.CapRun, f.Caps.MaxConcurrent, "")
		}
	}
	if err == nil {
		cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
			WorkflowID:          f.RunID + "-" + d.Child.Span.ID,
			WaitForCancellation: true,
		})
		err = workflow.ExecuteChildWorkflow(cctx, InvocationWorkflowName, d.Child).Get(ctx, &r)
		giveSlot(ctx)
	}
	if len(r.Tally.Ledger) > 0 {
		r.Tally.Ledger[0].Task = delegateTask(c)
	}
	tally.add(r.Tally)
	if err != nil { // the child never ran or never closed: close its span here
		r.Outcome = delegation.Outcome{Status: trace.StatusError, Error: message(err)}
		if ctx.Err() != nil {
			r.Outcome = delegation.Outcome{Status: trace.StatusCancelled, Error: delegation.ErrCancelled.Error()}
		}
		if err := workflow.ExecuteActivity(stepCtx(dctx), a.Close, ks.next(), d.Child, r.Outcome, (*trace.Run)(nil)).Get(dctx, nil); err != nil {
			return "", err
		}
	}
	var out string
	err = workflow.ExecuteActivity(stepCtx(dctx), a.Finish, ks.next(), f, d, r.Outcome).Get(dctx, &out)
	return out, err
}

// dependency reads a finished call's result back for its dependents.
func dependency(c model.ToolCall, result string) *delegation.Dependency {
	var args struct{ ID, Agent string }
	_ = json.Unmarshal(c.Args, &args)
	var res struct {
		Status trace.Status `json:"status"`
		Result string       `json:"result"`
		Error  string       `json:"error"`
	}
	_ = json.Unmarshal([]byte(result), &res)
	return &delegation.Dependency{ID: args.ID, Agent: args.Agent,
		Outcome: delegation.Outcome{Status: res.Status, Result: res.Result, Error: res.Error}}
}

// admitted records on a delegation's span that it waited in line for a
// slot of capName (limit slots) since queued and now has one: the
// in-process queued and admitted events (agent names the delegating agent
// for its own cap).
func admitted(ctx workflow.Context, ks *keyer, d *delegation.Delegation, queued time.Time, capName string, limit int, agent string) error {
	attrs := func() map[string]any {
		a := map[string]any{semconv.EventAttrCap: capName, semconv.EventAttrLimit: limit}
		if agent != "" {
			a[semconv.EventAttrAgent] = agent
		}
		return a
	}
	if err := workflow.ExecuteActivity(stepCtx(ctx), a.Event, ks.next(), d.Span, semconv.EventQueued, attrs(), queued).Get(ctx, &d.Span); err != nil {
		return err
	}
	return workflow.ExecuteActivity(stepCtx(ctx), a.Event, ks.next(), d.Span, semconv.EventAdmitted, attrs(), time.Time{}).Get(ctx, &d.Span)
}

// agentWait is a wait of a delegation in its agent's line: for its
// max_concurrent (semconv.CapAgent), or for limits.turn_agents
// (semconv.CapTurn) when it runs in the background.
type agentWait struct {
	since time.Time
	cap   string
	limit int
	agent string
}

// waitedFor is the wait of a batch call that began to wait for its agent's
// max_concurrent at since (zero: it did not); a call refused for its
// arguments never waited in-process.
func waitedFor(since time.Time, f delegation.Frame, argErr string) []agentWait {
	if since.IsZero() || argErr != "" {
		return nil
	}
	return []agentWait{{since: since, cap: semconv.CapAgent, limit: f.Schedule.MaxConcurrent, agent: f.Branch[len(f.Branch)-1]}}
}
