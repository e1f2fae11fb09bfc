package temporal

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
)

// Activities are the side effects of a run: each is one delegation.Steps
// step, so the worker runs the in-process code for permissions, hooks,
// models, tools and spans. Registered on a worker as a struct, so their
// names are the method names.
type Activities struct {
	Steps *delegation.Steps
	// Flush writes the trace recorded so far; an activity completes only
	// after its spans are stored, so a worker killed after a completed step
	// cannot lose that step's record. Nil flushes nothing.
	Flush func(context.Context) error
	// Beat is how often a long activity heartbeats (0 = every second), so
	// a killed worker's activities are retried elsewhere after the
	// heartbeat timeout.
	Beat time.Duration
}

// RootResult is what the Root activity returns.
type RootResult struct {
	Frame delegation.Frame
	Ended *delegation.Outcome
}

// TurnResult is one model call: a response, or the call's failure.
type TurnResult struct {
	Response *model.Response
	Err      *delegation.TurnError
	CostUSD  float64 // priced cost of the call (0: not priced), for the run's total and budget
}

// DelegateResult is a delegate call checked: its child to start, or the
// result its parent reads when it was refused.
type DelegateResult struct {
	Delegation *delegation.Delegation
	Refused    string
	Asked      *delegation.Asked // the target needs approval: wait, then AnsweredDelegate (approval.go)
}

// Root records the run and opens its root invocation.
func (a *Activities) Root(ctx context.Context, key delegation.Key, run trace.Run, req delegation.Request) (RootResult, error) {
	f, ended, err := a.Steps.Root(ctx, key, run, req)
	if err != nil {
		if ferr := a.flush(ctx); ferr != nil {
			return RootResult{}, ferr
		}
		return RootResult{}, temporal.NewNonRetryableApplicationError(err.Error(), "rejected", err)
	}
	return RootResult{Frame: f, Ended: ended}, a.flush(ctx)
}

// Turn makes one model call.
func (a *Activities) Turn(ctx context.Context, key delegation.Key, f delegation.Frame, attempt int) (TurnResult, error) {
	defer a.beat(ctx)()
	resp, err := a.Steps.Turn(ctx, key, f, attempt)
	var te *delegation.TurnError
	if errors.As(err, &te) {
		return TurnResult{Err: te}, a.flush(ctx)
	}
	if err != nil {
		return TurnResult{}, err
	}
	usd, _ := a.Steps.Cost(f, resp)
	return TurnResult{Response: resp, CostUSD: usd}, a.flush(ctx)
}

// Tool runs one tool call; idem is its idempotency key.
func (a *Activities) Tool(ctx context.Context, key delegation.Key, f delegation.Frame, c model.ToolCall, idem string) (string, error) {
	defer a.beat(ctx)()
	out, err := a.Steps.Tool(ctx, key, f, c, idem)
	if err != nil {
		return "", temporal.NewNonRetryableApplicationError(err.Error(), "frame", err)
	}
	return out, a.flush(ctx)
}

// Delegate checks one delegate call and opens its child.
func (a *Activities) Delegate(ctx context.Context, key delegation.Key, f delegation.Frame, c model.ToolCall, deps []delegation.Dependency, argErr string) (DelegateResult, error) {
	defer a.beat(ctx)()
	d, refused, asked, err := a.Steps.DelegateAsking(ctx, key, f, c, deps, argErr, true)
	if err != nil {
		return DelegateResult{}, temporal.NewNonRetryableApplicationError(err.Error(), "frame", err)
	}
	return DelegateResult{Delegation: d, Refused: refused, Asked: asked}, a.flush(ctx)
}

// Finish ends a delegation with its child's outcome.
func (a *Activities) Finish(ctx context.Context, key delegation.Key, f delegation.Frame, d delegation.Delegation, o delegation.Outcome) (string, error) {
	out, err := a.Steps.Finish(ctx, key, f, d, o)
	if err != nil {
		return "", temporal.NewNonRetryableApplicationError(err.Error(), "frame", err)
	}
	return out, a.flush(ctx)
}

// Close ends an invocation; with run set, the run.
func (a *Activities) Close(ctx context.Context, key delegation.Key, f delegation.Frame, o delegation.Outcome, run *trace.Run) (delegation.Outcome, error) {
	o, err := a.Steps.Close(ctx, key, f, o, run)
	if err != nil {
		return o, err
	}
	return o, a.flush(ctx)
}

func (a *Activities) flush(ctx context.Context) error {
	if a.Flush == nil {
		return nil
	}
	// A cancelled step's spans (ended cancelled) are stored all the same.
	return a.Flush(context.WithoutCancel(ctx))
}

// beat heartbeats until the returned stop is called.
func (a *Activities) beat(ctx context.Context) (stop func()) {
	every := a.Beat
	if every <= 0 {
		every = time.Second
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() { close(done) }
}

// Event adds an event to a span the workflow holds (delegation.Steps.Event).
func (a *Activities) Event(ctx context.Context, key delegation.Key, sp trace.Span, name string, attrs map[string]any, at time.Time) (trace.Span, error) {
	sp, err := a.Steps.Event(ctx, key, sp, name, attrs, at)
	if err != nil {
		return sp, err
	}
	return sp, a.flush(ctx)
}
