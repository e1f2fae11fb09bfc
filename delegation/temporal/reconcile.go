package temporal

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/serviceerror"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
)

// CancelRun cancels the workflow of durable run id (its workflow ID), from
// any process: serve's Cancel for a run another serve or the CLI started.
func (e *Engine) CancelRun(ctx context.Context, id string) error {
	return e.client.CancelWorkflow(ctx, id, "")
}

// ReconcileBatch is how many running runs Reconcile reads per call; the
// next call goes on from where this one stopped, so a store with many
// running runs is covered over several ticks at a bounded cost each.
const ReconcileBatch = 20

// reconcileGrace is how long a workflow must have been closed before its
// record is ended here: a run's own last writes (its Close activity, the
// client's) land around the close, and the record they leave wins.
const reconcileGrace = 3 * time.Second

// Reconciler ends the records of durable runs whose workflow closed
// without ending them: terminated in Temporal's UI or by `temporal
// workflow terminate`, or past its execution timeout. No worker writes
// such a run again, and no process reaper touches it (trace.Run.Durable),
// so without this it would stay running in the store forever. Not safe
// for concurrent use; one loop calls Tick.
type Reconciler struct {
	e      *Engine
	store  ReconcileStore
	cursor string // where the next batch of running runs starts
	now    func() time.Time
}

// ReconcileStore is the trace store a Reconciler ends runs in: their
// records, and the approvals they leave pending.
type ReconcileStore interface {
	trace.Store
	approval.Store
}

// NewReconciler reconciles the durable runs of store with e's namespace.
func (e *Engine) NewReconciler(store ReconcileStore) *Reconciler {
	return &Reconciler{e: e, store: store, now: time.Now}
}

// Tick checks one batch of running runs: each durable one whose workflow
// has closed gets its record ended, with its open
// spans and pending approvals. It returns how many it ended.
func (r *Reconciler) Tick(ctx context.Context) (int, error) {
	page, err := r.store.Runs(ctx, trace.RunFilter{Status: trace.StatusRunning, Limit: ReconcileBatch, Cursor: r.cursor})
	if err != nil {
		r.cursor = ""
		return 0, fmt.Errorf("list running runs: %w", err)
	}
	r.cursor = ""
	if page.More {
		r.cursor = page.Next
	}
	ended := 0
	var errs []error
	for _, run := range page.Runs {
		if !run.Durable {
			continue
		}
		done, err := r.check(ctx, run)
		if err != nil {
			errs = append(errs, fmt.Errorf("run %s: %w", run.ID, err))
		}
		if done {
			ended++
		}
	}
	return ended, errors.Join(errs...)
}

// check ends run's record when its workflow is closed.
func (r *Reconciler) check(ctx context.Context, run trace.Run) (bool, error) {
	d, err := r.e.client.DescribeWorkflowExecution(ctx, run.ID, "")
	if errors.As(err, new(*serviceerror.NotFound)) {
		// Not this namespace's (a serve of another deployment on the same
		// trace store), or past its retention: ending it here could end a
		// run that is going elsewhere, so only a closed workflow counts.
		return false, nil
	}
	if err != nil {
		return false, err
	}
	info := d.GetWorkflowExecutionInfo()
	st := info.GetStatus()
	if st == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING || st == enumspb.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED {
		return false, nil
	}
	closed := info.GetCloseTime().AsTime()
	if r.now().Sub(closed) < reconcileGrace {
		return false, nil
	}
	status, msg := closedStatus(st, r.closeDetail(ctx, run.ID))
	return true, r.end(ctx, run.ID, status, closed, msg)
}

// closedStatus maps how Temporal closed a run's workflow onto the run's
// status, with the error saying what Temporal reported.
func closedStatus(st enumspb.WorkflowExecutionStatus, detail string) (trace.Status, string) {
	status := trace.StatusInterrupted
	switch st {
	case enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED:
		status = trace.StatusCancelled
	case enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT:
		status = trace.StatusTimeout
	}
	msg := string(status) + ": Temporal reports the run's workflow " + workflowStatusWord(st) + " without the run ending"
	if detail != "" {
		msg += " (" + detail + ")"
	}
	return status, msg
}

func workflowStatusWord(st enumspb.WorkflowExecutionStatus) string {
	switch st {
	case enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED:
		return "terminated"
	case enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED:
		return "cancelled"
	case enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT:
		return "timed out (its execution timeout)"
	case enumspb.WORKFLOW_EXECUTION_STATUS_FAILED:
		return "failed"
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		return "completed"
	case enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
		return "continued as new"
	}
	return st.String()
}

// closeDetail is the reason and identity on the workflow's close event
// (who terminated it and why), "" when there is none or it cannot be read.
func (r *Reconciler) closeDetail(ctx context.Context, id string) string {
	it := r.e.client.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT)
	if !it.HasNext() {
		return ""
	}
	ev, err := it.Next()
	if err != nil {
		return ""
	}
	return eventDetail(ev)
}

func eventDetail(ev *historypb.HistoryEvent) string {
	if a := ev.GetWorkflowExecutionTerminatedEventAttributes(); a != nil {
		s := "reason: " + a.GetReason()
		if a.GetReason() == "" {
			s = "no reason given"
		}
		if a.GetIdentity() != "" {
			s += ", by " + a.GetIdentity()
		}
		return s
	}
	if a := ev.GetWorkflowExecutionFailedEventAttributes(); a != nil {
		return a.GetFailure().GetMessage()
	}
	return ""
}

// end writes run id's record as ended with status at when, its open spans
// likewise, and denies its pending approvals, unless the record ended
// meanwhile.
func (r *Reconciler) end(ctx context.Context, id string, status trace.Status, when time.Time, msg string) error {
	run, err := r.store.Run(ctx, id)
	if err != nil || run.Status != trace.StatusRunning {
		return err
	}
	spans, err := r.store.Spans(ctx, id)
	if err != nil {
		return err
	}
	var open []trace.Span
	for _, sp := range spans {
		if sp.Status.IsFinal() && !sp.EndedAt.IsZero() {
			continue
		}
		sp.Status, sp.Error = status, msg
		if sp.EndedAt.IsZero() || sp.EndedAt.Before(sp.StartedAt) {
			sp.EndedAt = when
		}
		if sp.EndedAt.Before(sp.StartedAt) {
			sp.EndedAt = sp.StartedAt
		}
		open = append(open, sp)
	}
	run.Status, run.Error, run.EndedAt = status, msg, when.UTC()
	if run.EndedAt.Before(run.StartedAt) {
		run.EndedAt = run.StartedAt
	}
	if err := r.store.Apply(ctx, []trace.Run{run}, open); err != nil {
		return err
	}
	return denyPending(ctx, r.store, id, msg, when)
}

// denyPending denies run id's approvals still pending: no workflow waits
// for them any more.
func denyPending(ctx context.Context, as approval.Store, id, msg string, when time.Time) error {
	pending, err := as.Approvals(ctx, approval.Filter{RunID: id, Status: approval.Pending})
	if err != nil {
		return err
	}
	for _, a := range pending {
		_, err := as.DecideApproval(ctx, a.ID, approval.Answer{By: "agentry", Note: msg, At: when})
		if err != nil && !errors.Is(err, approval.ErrDecided) {
			return err
		}
	}
	return nil
}
