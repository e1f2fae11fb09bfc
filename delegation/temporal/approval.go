package temporal

import (
	"context"
	"errors"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace/approval"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/workflow"
)

// Approvals on Temporal (docs/temporal.md, "Approvals"). A tool call whose
// verdict is ask is three steps: the Ask activity records the pending row
// in the trace store (and the call's span, with the request on it); a child
// workflow agentry.Approval, whose ID is named after the row, waits durably
// for the answer; the AnsweredTool activity runs the call with the answer,
// which approve records on the span as in-process. A delegation whose
// target is ask is the same, its Delegate step asking and AnsweredDelegate
// checking it again with the answer. Only the asking branch
// waits, and no worker slot is held while it does.
//
// The row is the answer: every answerer (web UI, `agentry approvals`, the
// terminal of `agentry run`) decides it in the store, where the first answer
// wins. A signal to the approval workflow only says "read it now": answerers
// that have a Temporal client send one (Engine.Notify), and the workflow
// also reads the row on a timer, so an answer given by a process that knows
// nothing of Temporal (a serve on the same database) is seen within
// MaxApprovalPoll. approval_timeout is a workflow timer that denies the row.

// ApprovalWorkflowName is the workflow that waits for one approval.
const ApprovalWorkflowName = "agentry.Approval"

// ApprovalSignal nudges an approval workflow to read its row.
const ApprovalSignal = "approval-answered"

// How often a waiting approval reads its row without a signal: from
// minApprovalPoll, doubling to MaxApprovalPoll (each read is a few history
// events; a ten-minute wait is about 130 reads).
const (
	minApprovalPoll = time.Second
	MaxApprovalPoll = 5 * time.Second
)

// ApprovalWorkflowID names the workflow waiting for approval id of run, so
// any answerer finds it from the row alone.
func ApprovalWorkflowID(runID, id string) string { return runID + "-approval-" + id }

// ApprovalWait is an approval workflow's input.
type ApprovalWait struct {
	Approval approval.Approval // pending
	Timeout  time.Duration     // from the request
}

// ApprovalWorkflow waits for its row's answer: a signal or its poll timer
// makes it read the row, its timeout denies it. Cancelled (its run ended),
// it denies the row with that reason.
func ApprovalWorkflow(ctx workflow.Context, in ApprovalWait) (approval.Approval, error) {
	sig := workflow.GetSignalChannel(ctx, ApprovalSignal)
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	decide := func(ans approval.Answer) (approval.Approval, error) {
		var got approval.Approval
		err := workflow.ExecuteActivity(readCtx(dctx), a.DecideApproval, in.Approval.ID, ans).Get(dctx, &got)
		return got, err
	}
	left := in.Timeout - workflow.Now(ctx).Sub(in.Approval.RequestedAt)
	timeout := workflow.NewTimer(ctx, max(left, time.Millisecond))
	poll := minApprovalPoll
	for {
		var got approval.Approval
		if err := workflow.ExecuteActivity(readCtx(ctx), a.ReadApproval, in.Approval.ID).Get(ctx, &got); err == nil && got.Status != approval.Pending {
			return got, nil
		} else if ctx.Err() != nil {
			return decide(control.Cancelled(workflow.Now(ctx)))
		}
		pctx, stopPoll := workflow.WithCancel(ctx)
		timedOut := false
		s := workflow.NewSelector(ctx)
		s.AddReceive(sig, func(c workflow.ReceiveChannel, _ bool) {
			for c.ReceiveAsync(nil) { // one read answers every nudge so far
			}
		})
		s.AddFuture(workflow.NewTimer(pctx, poll), func(workflow.Future) { poll = min(2*poll, MaxApprovalPoll) })
		s.AddFuture(timeout, func(workflow.Future) { timedOut = true })
		s.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) {})
		s.Select(ctx)
		stopPoll()
		switch {
		case ctx.Err() != nil:
			return decide(control.Cancelled(workflow.Now(ctx)))
		case timedOut:
			return decide(control.TimedOut(in.Timeout, workflow.Now(ctx)))
		}
	}
}

// tool runs call c of f (key: its step) into out, first waiting for its
// approval when the agent has ask patterns.
func (d *driver) tool(ctx workflow.Context, key delegation.Key, f delegation.Frame, c model.ToolCall, idem string, out *ToolResult) error {
	if !f.Asks {
		return d.toolCall(ctx, key, f, c, idem, nil, out)
	}
	var asked control.Asked
	if err := workflow.ExecuteLocalActivity(stepCtx(ctx), a.Ask, key, f, c).Get(ctx, &asked); err != nil {
		return err
	}
	if asked.Approval == nil {
		return d.toolCall(ctx, key, f, c, idem, nil, out)
	}
	ans, tctx, err := awaitApproval(ctx, f, asked)
	if err != nil {
		return err
	}
	return d.toolCall(tctx, key, f, c, idem, &ans, out)
}

// toolCall runs call c as the Tool activity, or AnsweredTool with the
// answer to its approval (ans), into out. When its attempt was lost with
// its worker (loss), the ToolLost local activity ends the call's span on
// the same key.
func (d *driver) toolCall(ctx workflow.Context, key delegation.Key, f delegation.Frame, c model.ToolCall, idem string, ans *approval.Approval, out *ToolResult) error {
	var err error
	if ans == nil {
		err = workflow.ExecuteActivity(callCtx(ctx, f.Timeout), a.Tool, key, f, c, idem).Get(ctx, out)
	} else {
		err = workflow.ExecuteActivity(callCtx(ctx, f.Timeout), a.AnsweredTool, key, f, c, idem, *ans).Get(ctx, out)
	}
	var b callBeat
	if l, ok := d.loss(ctx, err, &b, callLost); ok {
		l.Started = b.Started
		lerr := localStep(ctx, out, a.ToolLost, key, f, c, idem, ans, l)
		if l.Stop == nil { // under the stop, the call ends as its invocation does
			return lerr
		}
	}
	return err
}

// answeredStart waits for the approval a delegation's target needs, then
// runs its Start step again with the answer into r.
func answeredStart(ctx workflow.Context, key delegation.Key, f delegation.Frame, it loop.Item, rec delegation.Delegation, asked control.Asked, r *StartResult) error {
	ans, tctx, err := awaitApproval(ctx, f, asked)
	if err != nil {
		return err
	}
	return workflow.ExecuteLocalActivity(stepCtx(tctx), a.AnsweredStart, key, f, it, rec, ans).Get(tctx, r)
}

// awaitApproval waits for the answer of a pending approval in a child
// workflow named after its row; an earlier approval for the run is its own
// answer. The context it returns is for the step that records the answer:
// a denied or cancelled call still ends its span (opened by the asking
// step), so the run's end does not cancel that step.
func awaitApproval(ctx workflow.Context, f delegation.Frame, asked control.Asked) (approval.Approval, workflow.Context, error) {
	ans := *asked.Approval
	if ans.Status == approval.Pending {
		cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
			WorkflowID: ApprovalWorkflowID(f.RunID, ans.ID), WaitForCancellation: true})
		if err := workflow.ExecuteChildWorkflow(cctx, ApprovalWorkflowName, ApprovalWait{Approval: ans, Timeout: asked.Timeout}).Get(ctx, &ans); err != nil && ans.Status == approval.Pending {
			return ans, ctx, err
		}
	}
	if ctx.Err() != nil {
		dctx, _ := workflow.NewDisconnectedContext(ctx)
		return ans, dctx, nil
	}
	return ans, ctx, nil
}

// Ask checks whether a tool call needs approval and records its request.
func (a *Activities) Ask(ctx context.Context, key delegation.Key, f delegation.Frame, c model.ToolCall) (control.Asked, error) {
	asked, err := a.Steps.Ask(ctx, key, f, c)
	if err != nil {
		return asked, err
	}
	return asked, a.flush(ctx)
}

// AnsweredTool runs a tool call whose approval was answered (ans).
func (a *Activities) AnsweredTool(ctx context.Context, key delegation.Key, f delegation.Frame, c model.ToolCall, idem string, ans approval.Approval) (ToolResult, error) {
	return a.tool(ctx, key, f, c, idem, &ans)
}

// AnsweredStart starts a delegation with its approval's answer, or ends it.
func (a *Activities) AnsweredStart(ctx context.Context, key delegation.Key, f delegation.Frame, it loop.Item, rec delegation.Delegation, ans approval.Approval) (StartResult, error) {
	rec, ended, _, err := a.Steps.Start(answered(ctx, ans), key, f, it, rec, &ans)
	return StartResult{Delegation: rec, Ended: ended}, a.done(ctx, err)
}

// answered is the step's context: cancelled when the run ended while the
// call waited (ans says so), so the call ends as in-process.
func answered(ctx context.Context, ans approval.Approval) context.Context {
	if c := control.Cancelled(time.Time{}); ans.Status == approval.Denied && ans.DecidedBy == c.By && ans.Note == c.Note {
		c2, cancel := context.WithCancelCause(ctx)
		cancel(delegation.ErrCancelled)
		return c2
	}
	return ctx
}

// ReadApproval reads an approval's row.
func (a *Activities) ReadApproval(ctx context.Context, id string) (approval.Approval, error) {
	return a.approvals().Approval(ctx, id)
}

// DecideApproval answers a row nobody answered (timeout, cancel); an answer
// already there stands.
func (a *Activities) DecideApproval(ctx context.Context, id string, ans approval.Answer) (approval.Approval, error) {
	got, err := a.approvals().DecideApproval(context.WithoutCancel(ctx), id, ans)
	if errors.Is(err, approval.ErrDecided) {
		err = nil
	}
	return got, err
}

func (a *Activities) approvals() approval.Store {
	if s := a.Steps.Approvals(); s != nil {
		return s
	}
	return noApprovals{}
}

// noApprovals is a worker without an approval store: Ask asks nothing then,
// so its approval activities are never called.
type noApprovals struct{ approval.Store }

// Notify tells the approval workflow of a's row that it was answered, so it
// reads the answer now rather than at its next poll. A row no workflow waits
// for (an in-process run's, or one already over) is not an error.
func (e *Engine) Notify(ctx context.Context, a approval.Approval) error {
	err := e.client.SignalWorkflow(ctx, ApprovalWorkflowID(a.RunID, a.ID), "", ApprovalSignal, a.ID)
	if errors.As(err, new(*serviceerror.NotFound)) {
		return nil
	}
	return err
}
