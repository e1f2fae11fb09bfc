package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/cmd/agentry/followup"
	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/web"
	"github.com/agentry/agentry/web/core"
)

// uiRunner starts the browser's runs on the runtime and counts them, so
// serve can let runs that Close cancelled write their final spans before
// the trace store closes.
type uiRunner struct {
	rt       *delegation.Runtime
	rec      *trace.Recorder
	store    followup.Store // the reply box's follow-ups
	log      *slog.Logger
	running  sync.WaitGroup
	inFlight atomic.Int64
	draining atomic.Bool // set on shutdown: Start refuses
}

// errShuttingDown refuses a run asked for while serve shuts down.
var errShuttingDown = errors.New("the server is shutting down and starts no new runs")

// track counts a started run until it is done.
func (u *uiRunner) track(done <-chan struct{}, after func()) {
	u.inFlight.Add(1)
	u.running.Go(func() {
		defer u.inFlight.Add(-1)
		<-done
		if after != nil {
			after()
		}
	})
}

// Start starts a run and flushes the recorder, so the run is in the store
// when the browser is sent to its timeline (core.Runner's contract).
func (u *uiRunner) Start(ctx context.Context, r core.RunRequest) (core.Execution, error) {
	if u.draining.Load() {
		return nil, errShuttingDown
	}
	req := delegation.Request{Agent: r.Agent, Task: r.Task, Model: r.Model, Budget: r.Budget, Tools: r.Tools, Inline: r.Inline}
	if err := u.followUp(ctx, r.Continue, &req); err != nil {
		return nil, err
	}
	ctx, req.Attributes = callerOf(ctx, r.Caller, r.TraceParent)
	ex, err := u.rt.Start(ctx, req)
	if err != nil {
		return nil, err // not ex: a nil *Execution would be a non-nil core.Execution
	}
	fe := &flushedExecution{Execution: ex, done: make(chan struct{})}
	u.track(ex.Done(), func() {
		// Whoever waits on Done (an MCP call, the API) reads the run's end
		// from the store: write it first.
		_ = u.rec.Flush(context.Background())
		close(fe.done)
		// So it can be replied to; a failure loses only that, and says so.
		if err := followup.Save(context.Background(), u.store, ex.Result(), len(req.History)); err != nil {
			u.log.Warn("the run cannot be replied to: its conversation was not saved", "run", ex.Result().RunID, "err", err)
		}
	})
	// A write error stays with the recorder (rec.Err, logged by serve); the
	// run goes on and its timeline shows what reached the store.
	_ = u.rec.Flush(ctx)
	return fe, nil
}

// flushedExecution is a run whose Done closes once the recorder has
// written the run's end, so the store holds it for whoever waited.
type flushedExecution struct {
	*delegation.Execution
	done chan struct{}
}

// Done is closed when the run has ended and its end is in the store.
func (f *flushedExecution) Done() <-chan struct{} { return f.done }

// uiWorkflows starts the browser's workflow runs on the same runtime,
// counted with the agent runs.
type uiWorkflows struct{ u *uiRunner }

// Start starts a workflow run in the background and flushes the recorder,
// so the run is in the store when the browser is sent to its timeline.
func (w uiWorkflows) Start(ctx context.Context, r core.WorkflowRunRequest) (core.Execution, error) {
	if w.u.draining.Load() {
		return nil, errShuttingDown
	}
	ctx, attrs := callerOf(ctx, r.Caller, r.TraceParent)
	ex := workflow.Start(ctx, w.u.rt, r.Workflow, r.Model, workflow.Options{Inputs: r.Inputs, Tools: r.Tools, Attributes: attrs})
	w.u.track(ex.Done(), nil)
	_ = w.u.rec.Flush(ctx)
	return ex, nil
}

// watchWorkflows watches the workflows folder into a catalog for the web
// (cfg.Workflows, default "workflows"; a missing default folder is awaited,
// so a workflows/ made while serve runs shows at once, a missing configured
// one is an error). Its workflows are checked against the registry's agents
// again whenever those change.
func watchWorkflows(ctx context.Context, cfg config.Config, reg *registry.Registry, versions *versionRecorder, log *slog.Logger, web *web.Config) (func(), error) {
	dir, err := optionalFolder("workflows", cfg.Workflows)
	if err != nil {
		return nil, err
	}
	cat := workflow.NewCatalog(func(name string) bool { _, ok := reg.Snapshot().Agent(name); return ok })
	f, err := folder.OpenAwaiting(dir, workflowContents(cat, versions), folder.Config{Log: log})
	if err != nil {
		return nil, fmt.Errorf("watch workflows: %w", err)
	}
	versions.syncWorkflows(ctx, cat.Snapshot())
	changes, unsubscribe := reg.Subscribe()
	go func() {
		for range changes {
			cat.Recheck()
		}
	}()
	web.Workflows, web.WorkflowFiles, web.WorkflowsDir = cat, folder.Sourced(f, registry.SourceWeb), dir
	return func() { unsubscribe(); f.Close() }, nil
}

// optionalFolder is the folder a key names (configured), which must exist,
// or the default folder of that name when it is not configured, which may
// not exist yet (folder.OpenAwaiting waits for it).
func optionalFolder(name, configured string) (string, error) {
	if configured == "" {
		return name, nil
	}
	if err := checkFolder(name, configured); err != nil {
		return "", err
	}
	return configured, nil
}

// followUp makes req a follow-up in the conversation of run cont (the
// reply box); nothing when cont is "".
func (u *uiRunner) followUp(ctx context.Context, cont string, req *delegation.Request) error {
	if cont == "" {
		return nil
	}
	return followup.Continue(ctx, u.store, cont, req)
}

// wait waits at most d, or until hurry closes, for the runs started here
// to end, and reports whether they did.
func (u *uiRunner) wait(d time.Duration, hurry <-chan struct{}) bool {
	done := make(chan struct{})
	go func() { u.running.Wait(); close(done) }()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-done:
		return true
	case <-timer.C:
	case <-hurry:
	}
	select { // a run that ended at the deadline counts
	case <-done:
		return true
	default:
		return false
	}
}
