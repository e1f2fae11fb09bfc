package temporal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/trace"
)

// Run-wide caps over a YAML workflow's agents (docs/temporal.md). In-process
// a workflow run is a Session: each agent a step invokes counts under
// max_agents_per_run, waits for a max_concurrent slot and adds its tokens to
// token_budget. On Temporal agentry.WorkflowRun holds the run's ledger
// (ledger.go) with no root agent and every slot free. Before it opens an
// invocation, PlayWorkflow reserves its agent and slot by an update (the
// refused agent then has no span, as in-process); the update's ID is the
// invocation's workflow ID, so an activity retried after a lost worker does
// not count the agent twice. The invocation gives its slot back as it ends,
// and its delegations ask the same ledger as a run's do (Frame.Caps). When
// token_budget is spent the ledger cancels PlayWorkflow, which asks the
// workflow why (a query) and ends the run with the in-process error.

const (
	flowReserveUpdate = "flow-reserve" // PlayWorkflow to WorkflowRun: an agent and a slot for the invocation of that ID
	flowStopQuery     = "flow-stop"    // why token_budget stopped the run ("" while it has not)
)

// FlowCaps reads the worker's run-wide caps.
func (a *FlowActivities) FlowCaps(context.Context) (delegation.RunCaps, error) {
	return a.Steps.FlowCaps(), nil
}

// startFlowLedger reads the worker's caps and, when any is set, starts the
// run's ledger; stopPlay cancels PlayWorkflow (token_budget).
func startFlowLedger(ctx workflow.Context, runID string, stopPlay func()) (delegation.RunCaps, *rootLedger, error) {
	var caps delegation.RunCaps
	cctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, RetryPolicy: lostWorker})
	if err := workflow.ExecuteActivity(cctx, fa.FlowCaps).Get(ctx, &caps); err != nil {
		return caps, nil, err
	}
	_, book := startRootLedger(ctx, delegation.Frame{RunID: runID, Caps: caps}, stopPlay)
	if book == nil {
		return caps, nil, nil
	}
	book.agents, book.free = 0, caps.MaxConcurrent // no root agent: every slot is the steps'
	reserved := map[string]bool{}
	err := workflow.SetUpdateHandler(ctx, flowReserveUpdate, func(c workflow.Context, id string) (flowGrant, error) {
		if book.over != "" { // token_budget: no agent starts after it is spent
			return flowGrant{Over: book.over}, nil
		}
		if ok, seen := reserved[id]; seen {
			return flowGrant{OK: ok}, nil
		}
		ok := false
		book.handle(LedgerAsk{Agent: 1}, func(a LedgerAnswer) { ok = a.Agent })
		if ok && caps.MaxConcurrent > 0 {
			granted := false
			book.handle(LedgerAsk{Slot: 1}, func(a LedgerAnswer) { granted = a.Slot })
			if err := workflow.Await(c, func() bool { return granted }); err != nil {
				return flowGrant{}, err
			}
		}
		reserved[id] = ok
		return flowGrant{OK: ok}, nil
	})
	if err != nil {
		return caps, nil, err
	}
	err = workflow.SetQueryHandler(ctx, flowStopQuery, func() (string, error) { return book.over, nil })
	return caps, book, err
}

// flowGrant answers a reservation: OK, or refused by max_agents_per_run,
// or Over: why token_budget stopped the run.
type flowGrant struct {
	OK   bool
	Over string
}

// reserve asks the run's ledger for an agent and a slot for invocation id;
// an error says why it may not start.
func (h *durableHost) reserve(ctx context.Context, id, agent string) error {
	if h.caps == (delegation.RunCaps{}) {
		return nil
	}
	u, err := h.c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{UpdateID: id, WorkflowID: h.runID,
		UpdateName: flowReserveUpdate, Args: []any{id}, WaitForStage: client.WorkflowUpdateStageCompleted})
	if err != nil {
		return err
	}
	var g flowGrant
	if err := u.Get(ctx, &g); err != nil {
		return err
	}
	if g.Over != "" { // the run stops now, as in-process, not when its cancellation reaches this activity
		h.abort(overBudget(g.Over))
		return errNotStarted
	}
	if !g.OK {
		return fmt.Errorf("agent %s: max agents per run reached", agent) // in-process words (Session.Invoke)
	}
	return nil
}

// stopCause is why PlayWorkflow's context ended: the run's token budget,
// if the workflow says so, or its cancellation.
func (h *durableHost) stopCause() error {
	if h.caps.TokenBudget == 0 {
		return delegation.ErrCancelled
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v, err := h.c.QueryWorkflow(ctx, h.runID, "", flowStopQuery)
	var why string
	if err != nil || v.Get(&why) != nil || why == "" {
		return delegation.ErrCancelled
	}
	return overBudget(why)
}

// checkBudget stops the engine once token_budget is spent, before it
// starts another step: in-process the model call that spends it cancels
// the run at once, while here the ledger's cancellation reaches the
// activity with its next heartbeat.
func (h *durableHost) checkBudget() {
	if h.caps.TokenBudget == 0 {
		return
	}
	if err := h.stopCause(); errors.Is(err, delegation.ErrTokenBudget) {
		h.abort(err)
	}
}

// overBudget is the ledger's why as the in-process cause.
func overBudget(why string) error {
	return fmt.Errorf("%w%s", delegation.ErrTokenBudget, strings.TrimPrefix(why, delegation.ErrTokenBudget.Error()))
}

// errNotStarted: the run stopped before the invocation started.
var errNotStarted = errors.New("not started")

// stopped is the outcome of an invocation whose run stopped: cancelled,
// or the token budget's error as in-process (delegation's failed), or a
// lost last attempt's (endCause).
func stopped(ctx context.Context) loop.Outcome {
	if c := context.Cause(ctx); errors.Is(c, delegation.ErrTokenBudget) || errors.Is(c, delegation.ErrLastAttemptLost) {
		return loop.Outcome{Status: trace.StatusError, Error: c.Error()}
	}
	return loop.Outcome{Status: trace.StatusCancelled, Error: delegation.ErrCancelled.Error()}
}
