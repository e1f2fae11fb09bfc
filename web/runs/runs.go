package runs

import (
	"context"
	"errors"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/web/core"
)

// RunStore is what the runs pages read of the trace database: runs and
// spans (trace.Store has the contract of each) and which conversation each
// run belongs to (conversation.Store), for the runs list to group them.
// trace/sqlite, trace/postgres and trace/memory satisfy it.
type RunStore interface {
	Runs(ctx context.Context, f trace.RunFilter) (trace.RunPage, error)
	Run(ctx context.Context, id string) (trace.Run, error)
	Spans(ctx context.Context, runID string) ([]trace.Span, error)
	SpansSince(ctx context.Context, runID string, cursor int64) ([]trace.Span, int64, error)
	Skeleton(ctx context.Context, runID string) ([]trace.Span, int64, error)
	Span(ctx context.Context, runID, spanID string) (trace.Span, error)
	FindSpans(ctx context.Context, runID string, q trace.SpanQuery) ([]string, error)
	Export(ctx context.Context, id string) (trace.Document, error)
	ConversationIDs(ctx context.Context, runIDs []string) (map[string]string, error)
}

// RunRequest is a run started from the browser (core.RunRequest: every
// edge of the server starts runs the same way).
type RunRequest = core.RunRequest

// Runner starts runs; serve adapts the delegation runtime to it (core.Runner).
type Runner = core.Runner

// RunnerFunc adapts a function to Runner.
type RunnerFunc = core.RunnerFunc

// Execution is a run in progress (core.Execution).
type Execution = core.Execution

// errRunsOff is returned when the server was built without a trace store.
var errRunsOff = errors.New("runs are not available: the server has no trace store")

// pollInterval is how often a live timeline asks the store for changes.
const pollInterval = 150 * time.Millisecond

// Launch starts a run that is not one agent's (a workflow's, from the
// workflows pages) with the server's lifetime, remembered until it ends
// so the timeline's Cancel reaches it (core.Live.Launch).
func (rp *Pages) Launch(start func(ctx context.Context) (Execution, error)) (string, error) {
	ex, err := rp.live.Launch(start)
	if err != nil {
		return "", err
	}
	return ex.RunID(), nil
}
