package runs

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
)

// fakeRunner is a hand-written Runner: Start records a running run with a
// root span in the store and returns an execution that a test ends by
// calling Cancel or finish.
type fakeRunner struct {
	store *memory.Store
	now   func() time.Time

	mu       sync.Mutex
	started  []RunRequest
	execs    map[string]*fakeExec
	StartErr error
}

var _ Runner = (*fakeRunner)(nil)

func newFakeRunner(store *memory.Store) *fakeRunner {
	return &fakeRunner{store: store, now: func() time.Time { return ms(0) }, execs: map[string]*fakeExec{}}
}

func (f *fakeRunner) Start(ctx context.Context, r RunRequest) (Execution, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.StartErr != nil {
		return nil, f.StartErr
	}
	f.started = append(f.started, r)
	id := trace.NewRunID()
	run := trace.Run{ID: id, Agent: r.Agent, Task: r.Task, Model: r.Model, Status: trace.StatusRunning, StartedAt: f.now(), Agents: 1}
	root := trace.Span{ID: id[:16], RunID: id, Kind: trace.KindInvokeAgent, Name: "invoke_agent " + r.Agent,
		Agent: r.Agent, Status: trace.StatusRunning, StartedAt: f.now()}
	if err := f.store.Apply(ctx, []trace.Run{run}, []trace.Span{root}); err != nil {
		return nil, err
	}
	ex := &fakeExec{id: id, done: make(chan struct{}), store: f.store, run: run, root: root}
	f.execs[id] = ex
	return ex, nil
}

func (f *fakeRunner) Requests() []RunRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]RunRequest(nil), f.started...)
}

func (f *fakeRunner) Exec(id string) *fakeExec {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.execs[id]
}

// fakeExec is a run that ends when Cancelled or finished.
type fakeExec struct {
	id        string
	done      chan struct{}
	once      sync.Once
	store     *memory.Store
	run       trace.Run
	root      trace.Span
	Cancelled atomic.Bool
}

func (e *fakeExec) RunID() string         { return e.id }
func (e *fakeExec) Done() <-chan struct{} { return e.done }
func (e *fakeExec) Cancel()               { e.Finish(trace.StatusCancelled) }

// finish records the run and its root span as ended with st, then closes Done.
func (e *fakeExec) Finish(st trace.Status) {
	e.once.Do(func() {
		e.Cancelled.Store(st == trace.StatusCancelled)
		end := e.run.StartedAt.Add(time.Second)
		e.run.Status, e.run.EndedAt = st, end
		e.root.Status, e.root.EndedAt = st, end
		_ = e.store.Apply(context.Background(), []trace.Run{e.run}, []trace.Span{e.root})
		close(e.done)
	})
}

// EndUnrecorded closes Done without writing the run's end to the store, as
// a run does whose recorder has not flushed its end yet (a workflow run).
func (e *fakeExec) EndUnrecorded() { e.once.Do(func() { close(e.done) }) }
