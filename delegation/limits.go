package delegation

import (
	"context"
	"errors"

	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/orchestrator"
	"github.com/agentry/agentry/trace"
)

// failed classifies err from work done under ctx: timeouts and cancellation
// come from the context's cause, anything else is an error.
func failed(ctx context.Context, err error) loop.Outcome {
	if ctx.Err() != nil {
		cause := context.Cause(ctx)
		switch {
		case errors.Is(cause, ErrTokenBudget), errors.Is(cause, ErrLastAttemptLost): // first: a lost attempt may have ended at its deadline
			return loop.Outcome{Status: trace.StatusError, Error: cause.Error()}
		case errors.Is(cause, ErrRunTimeout), errors.Is(cause, ErrAgentTimeout), errors.Is(cause, orchestrator.ErrToolTimeout), errors.Is(cause, context.DeadlineExceeded):
			return loop.Outcome{Status: trace.StatusTimeout, Error: cause.Error()}
		default:
			return loop.Outcome{Status: trace.StatusCancelled, Error: cause.Error()}
		}
	}
	if errors.Is(err, loop.ErrBudget) {
		return loop.Outcome{Status: trace.StatusLimit, Error: err.Error()}
	}
	return loop.Outcome{Status: trace.StatusError, Error: err.Error()}
}
