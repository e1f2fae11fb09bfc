package temporal

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentry/agentry/delegation"
)

// Timeouts of the activities. A killed worker's activity is retried
// elsewhere after heartbeatTimeout; its short steps (bookkeeping writes)
// after stepTimeout.
const (
	heartbeatTimeout = 5 * time.Second
	stepTimeout      = 30 * time.Second
	defaultCallLimit = 10 * time.Minute
	timerMargin      = 5 * time.Second
)

// lostWorker retries an activity whose worker went away. The step is the
// same (same key, same span IDs, same idempotency key), so the retry
// continues the call, it does not add one.
var lostWorker = &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, BackoffCoefficient: 2,
	MaximumInterval: 5 * time.Second, MaximumAttempts: 10, NonRetryableErrorTypes: []string{"rejected", "frame"}}

// stepCtx is for the steps that check and record (Root, Check, Start,
// Finish, Close, ...): local activities, run by the worker of the workflow
// task. A lost worker's are run again by the next worker that replays the
// task, with the same key, so the same span IDs.
func stepCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: defaultCallLimit, RetryPolicy: lostWorker})
}

// localStep runs one of those steps, fn with args, and reads its result
// into out (nil: none). It runs on a context no stop of c reaches: a
// cancelled or timed-out invocation still records how its work ended,
// and a Root that completes as the run is cancelled is still closed.
func localStep(c workflow.Context, out, fn any, args ...any) error {
	dctx, _ := workflow.NewDisconnectedContext(c)
	return workflow.ExecuteLocalActivity(stepCtx(dctx), fn, args...).Get(dctx, out)
}

// readCtx is for the short activities of the approval workflow (reading
// and deciding its row), which stay activities: that workflow's shape is
// unchanged since its first version.
func readCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: defaultCallLimit, HeartbeatTimeout: heartbeatTimeout, RetryPolicy: lostWorker})
}

// callCtx is for a model call or a tool call: bounded by the agent's
// timeout, or defaultCallLimit.
func callCtx(ctx workflow.Context, agentTimeout time.Duration) workflow.Context {
	limit := defaultCallLimit
	if agentTimeout > 0 { // the agent's timer fires first and cancels the call
		limit = agentTimeout + timerMargin
	}
	// WaitForCancellation: a cancelled invocation closes after its calls
	// have ended their spans (the cancel reaches a call with its next
	// heartbeat), as in-process it returns after its branches end.
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: limit, HeartbeatTimeout: heartbeatTimeout, RetryPolicy: lostWorker, WaitForCancellation: true})
}

// keyer names the steps of one workflow in order: the same on replay and
// on every retry of a step, so step keys (and the span IDs made from them)
// are stable.
type keyer struct {
	prefix string
	n      int
}

func keys(ctx workflow.Context) *keyer {
	return &keyer{prefix: workflow.GetInfo(ctx).WorkflowExecution.ID}
}

func (k *keyer) next() delegation.Key {
	k.n++
	return delegation.Key(fmt.Sprintf("%s/%d", k.prefix, k.n))
}
