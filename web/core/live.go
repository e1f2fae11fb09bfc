package core

import (
	"context"
	"net/http"
	"slices"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/delegation/progress"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// RunRequest is a run asked for through the server: the start form, the
// reply box, the JSON API, an MCP tool call or an A2A message. Every edge
// fills the same request and starts it through the same Runner, so a run
// is the same run whoever asked.
type RunRequest struct {
	Agent, Task string
	Model       string // a model spec; "" means the agents' own models
	// Continue, when set, is the run this one follows up (the run page's
	// reply box): the new run joins that run's conversation.
	Continue string
	Budget   registry.Budget // overrides the configured budget (a continuation's)
	// Caller, when set, says which outside tool asked (an MCP client, an
	// A2A client, an API token); the run's root span carries it.
	Caller *Caller
	// TraceParent, when set, is the W3C traceparent the caller sent: the
	// run joins the caller's trace.
	TraceParent string
	// Tools, when set, is one more level of every permission chain of the
	// run, between the global level and the root agent: the exposure's
	// permissions (expose.permissions) for a run an outside tool asked for.
	Tools *permissions.Rules
	// Inline, when set, is the agent itself rather than one of the
	// registry's: a slash command's (web/skills).
	Inline *registry.Agent
}

// Caller is the outside tool a run was asked for by.
type Caller struct {
	// Protocol is how it asked: "mcp", "a2a" or "api".
	Protocol string
	// Name is what it calls itself (MCP's clientInfo.name); "" when unsaid.
	Name string
	// Version is its version as it says (MCP's clientInfo.version).
	Version string
}

// Attributes are the root-span attributes that say who asked (nil when
// no outside tool did); the runner puts them on the run's root span.
func (c *Caller) Attributes() map[string]any {
	if c == nil {
		return nil
	}
	attrs := map[string]any{semconv.AttrCallerProtocol: c.Protocol}
	if c.Name != "" {
		attrs[semconv.AttrCallerName] = c.Name
	}
	if c.Version != "" {
		attrs[semconv.AttrCallerVersion] = c.Version
	}
	return attrs
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

// WorkflowRunRequest is a workflow run asked for through the server (the
// workflow's start form, the JSON API).
type WorkflowRunRequest struct {
	Workflow *workflow.Workflow
	Inputs   map[string]any // resolved: converted to each input's type, defaults applied
	Model    string         // a model spec; "" means each agent's own
	Caller   *Caller        // the outside tool that asked, if one did
	// TraceParent and Tools are RunRequest's: the caller's trace, and the
	// exposure's permission level over every step's agent.
	TraceParent string
	Tools       *permissions.Rules
}

// WorkflowRunner starts workflow runs; serve adapts workflow.Start to it.
// Like Runner, Start must return quickly with the run recorded, so the
// timeline the browser is sent to finds it.
type WorkflowRunner interface {
	Start(ctx context.Context, r WorkflowRunRequest) (Execution, error)
}

// DurableCanceller is a Runner whose runs no process owns
// (trace.Run.Durable: engine: temporal). It cancels a durable run by its
// ID whichever process started it, so Cancel is offered on every serve
// that reads the run, and on this one after a restart, not only on the
// serve that started it.
type DurableCanceller interface {
	CancelDurable(ctx context.Context, runID string) error
}

// Live keeps the runs this server started until they end, so Cancel (the
// run page's button, the API, MCP's and A2A's cancellations) can reach
// them; when the server stops, every run still going is cancelled so its
// trace ends as cancelled rather than interrupted. It is safe for
// concurrent use.
type Live struct {
	ctx context.Context // lives as long as the server

	mu   sync.Mutex
	runs map[string]Execution
	// ended are the last runs this server started that have ended, oldest
	// first: a Cancel that comes after a run's Done but before the store
	// holds its end (a workflow's recorder flushes later) is answered that
	// the run is ending here, not that another process runs it.
	ended []string
}

// endedKept is how many ended runs Live remembers for that answer.
const endedKept = 256

// NewLive returns a Live whose runs are cancelled when stop closes.
func NewLive(stop <-chan struct{}) *Live {
	ctx, cancel := context.WithCancel(context.Background())
	l := &Live{ctx: ctx, runs: map[string]Execution{}}
	go func() {
		<-stop
		l.cancelAll()
		cancel()
	}()
	return l
}

// Start starts a run on r with the server's lifetime and remembers it
// until it ends.
func (l *Live) Start(r Runner, req RunRequest) (Execution, error) {
	return l.Launch(func(ctx context.Context) (Execution, error) { return r.Start(ctx, req) })
}

// StartWorkflow starts a workflow run on r as Start starts an agent's.
func (l *Live) StartWorkflow(r WorkflowRunner, req WorkflowRunRequest) (Execution, error) {
	return l.Launch(func(ctx context.Context) (Execution, error) { return r.Start(ctx, req) })
}

// Launch starts a run that is not one agent's (a workflow's) as Start
// does: start gets a context that lives as long as the server and must
// keep Runner.Start's contract (return quickly, the run recorded).
func (l *Live) Launch(start func(ctx context.Context) (Execution, error)) (Execution, error) {
	ex, err := start(l.ctx)
	if err != nil {
		return nil, err
	}
	id := ex.RunID()
	l.mu.Lock()
	l.runs[id] = ex
	l.mu.Unlock()
	go func() {
		<-ex.Done()
		l.mu.Lock()
		delete(l.runs, id)
		if len(l.ended) == endedKept {
			l.ended = l.ended[1:]
		}
		l.ended = append(l.ended, id)
		l.mu.Unlock()
	}()
	return ex, nil
}

// Has reports whether run id is going in this server.
func (l *Live) Has(id string) bool {
	_, ok := l.going(id)
	return ok
}

// going is run id's execution while it has not ended. An execution that
// has ended stays in runs until Launch's goroutine removes it: a request
// in between (a second Cancel) must hear that it ended, as the store says.
func (l *Live) going(id string) (Execution, bool) {
	l.mu.Lock()
	ex, ok := l.runs[id]
	l.mu.Unlock()
	if !ok {
		return nil, false
	}
	select {
	case <-ex.Done():
		return nil, false
	default:
		return ex, true
	}
}

// startedHere reports whether this server started run id: going, or among
// the last runs that ended.
func (l *Live) startedHere(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.runs[id]
	return ok || slices.Contains(l.ended, id)
}

// Cancel stops run id and reports whether it was going in this server.
func (l *Live) Cancel(id string) bool {
	ex, ok := l.going(id)
	if ok {
		ex.Cancel()
	}
	return ok
}

func (l *Live) cancelAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ex := range l.runs {
		ex.Cancel()
	}
}

// RunReader reads one run; trace.Store satisfies it.
type RunReader interface {
	Run(ctx context.Context, id string) (trace.Run, error)
}

// WatchStore is what a door reads of the trace store while a call waits
// on its run (Await, Watcher): the run's end and its spans as they are
// written. trace.Store satisfies it.
type WatchStore interface {
	RunReader
	progress.SpanReader
}

// CancelRun stops run id: one this server started, or a durable run
// (engine: temporal) whoever started it, through durable (nil when the
// runner cannot cancel durable runs). A run this server cannot reach is
// an *echo.HTTPError 409 that says why; the run page and the API share it.
func (l *Live) CancelRun(ctx context.Context, store RunReader, durable DurableCanceller, id string) error {
	if l.Cancel(id) {
		return nil
	}
	run, err := store.Run(ctx, id)
	if err != nil {
		return AsMissing(err, "run", id)
	}
	if durable == nil || !run.Durable || run.Status != trace.StatusRunning {
		if run.Durable && run.Status == trace.StatusRunning {
			return echo.NewHTTPError(http.StatusConflict, "This run is on Temporal: cancel it from a serve configured with engine: temporal, or in Temporal's UI.")
		}
		if run.Status == trace.StatusRunning && l.startedHere(id) {
			return echo.NewHTTPError(http.StatusConflict, "This run is already stopping: it has ended in this agentry process and its end is being recorded; the page shows how it ended in a moment.")
		}
		return echo.NewHTTPError(http.StatusConflict, notCancellable(run.Status))
	}
	if err := durable.CancelDurable(ctx, id); err != nil {
		return echo.NewHTTPError(http.StatusBadGateway, "The run could not be cancelled: "+FirstLine(err))
	}
	return nil
}

// notCancellable says why Cancel cannot reach a run this server is not running.
func notCancellable(st trace.Status) string {
	switch {
	case st == trace.StatusInterrupted:
		return "This run was interrupted: the agentry process that ran it stopped before it ended, so there is nothing left to cancel."
	case st.IsFinal():
		return "This run has already ended (" + string(st) + "); there is nothing left to cancel."
	}
	return "This run is going in another agentry process (a CLI run or another serve), and only that process can cancel it: stop it there (Ctrl-C)."
}
