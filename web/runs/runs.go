package runs

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
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

// RunRequest is a run started from the browser.
type RunRequest struct {
	Agent, Task string
	Model       string // a model spec; "" means the agents' own models
	// Continue, when set, is the run this one follows up (the run page's
	// reply box): the new run joins that run's conversation.
	Continue string
	Budget   registry.Budget // overrides the configured budget (a continuation's)
	// Inline, when set, is the agent itself rather than one of the
	// registry's: a slash command's (web/skills).
	Inline *registry.Agent
}

// Runner starts runs. serve adapts the delegation runtime to it.
//
// Start must return quickly: the run goes on after Start returns and after
// ctx's request ends (the server passes a context that lives as long as the
// server). When Start returns, the run is in the store the pages read, so
// the timeline the browser is sent to finds it: an adapter that records
// through a batching trace.Recorder flushes it before returning. Errors it
// returns are shown (their first line) to the person who asked.
type Runner interface {
	Start(ctx context.Context, r RunRequest) (Execution, error)
}

// RunnerFunc adapts a function to Runner.
type RunnerFunc func(ctx context.Context, r RunRequest) (Execution, error)

// Start calls f.
func (f RunnerFunc) Start(ctx context.Context, r RunRequest) (Execution, error) { return f(ctx, r) }

// Execution is a run in progress. *delegation.Execution satisfies it.
type Execution interface {
	RunID() string
	// Done is closed when the run has ended and its trace is final.
	Done() <-chan struct{}
	// Cancel stops every branch of the run; it may be called more than once.
	Cancel()
}

// errRunsOff is returned when the server was built without a trace store.
var errRunsOff = errors.New("runs are not available: the server has no trace store")

// pollInterval is how often a live timeline asks the store for changes.
const pollInterval = 150 * time.Millisecond

// liveRuns keeps the runs this server started until they end, so the Cancel
// button can reach them; when the server stops, every run still going is
// cancelled so its trace ends as cancelled rather than interrupted.
type liveRuns struct {
	ctx context.Context // lives as long as the server

	mu   sync.Mutex
	runs map[string]Execution
}

func newLiveRuns(stop <-chan struct{}) *liveRuns {
	ctx, cancel := context.WithCancel(context.Background())
	l := &liveRuns{ctx: ctx, runs: map[string]Execution{}}
	go func() {
		<-stop
		l.cancelAll()
		cancel()
	}()
	return l
}

// start starts a run with the server's lifetime and remembers it until it ends.
func (l *liveRuns) start(r Runner, req RunRequest) (string, error) {
	return l.launch(func(ctx context.Context) (Execution, error) { return r.Start(ctx, req) })
}

// Launch starts a run that is not one agent's (a workflow's, from the
// workflows pages) as start does: with the server's lifetime, remembered
// until it ends so the timeline's Cancel reaches it. start gets that
// context and must keep Runner.Start's contract (return quickly, the run
// recorded).
func (rp *Pages) Launch(start func(ctx context.Context) (Execution, error)) (string, error) {
	return rp.live.launch(start)
}

func (l *liveRuns) launch(start func(ctx context.Context) (Execution, error)) (string, error) {
	ex, err := start(l.ctx)
	if err != nil {
		return "", err
	}
	id := ex.RunID()
	l.mu.Lock()
	l.runs[id] = ex
	l.mu.Unlock()
	go func() {
		<-ex.Done()
		l.mu.Lock()
		delete(l.runs, id)
		l.mu.Unlock()
	}()
	return id, nil
}

// has reports whether run id is going in this server.
func (l *liveRuns) has(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.runs[id]
	return ok
}

// cancel stops run id and reports whether it was going in this server.
func (l *liveRuns) cancel(id string) bool {
	l.mu.Lock()
	ex, ok := l.runs[id]
	l.mu.Unlock()
	if ok {
		ex.Cancel()
	}
	return ok
}

func (l *liveRuns) cancelAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ex := range l.runs {
		ex.Cancel()
	}
}
