package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/cmd/agentry/followup"
	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/web"
	"github.com/agentry/agentry/web/core"
)

// pickupWait bounds how long the start form waits for a worker to record a
// submitted run: the browser is sent to the run's timeline, which needs the
// run in the store.
const pickupWait = 15 * time.Second

// temporalRuns starts the browser's agent runs on Temporal (engine:
// temporal): the workers run them and write the trace store this serve
// reads, so the run page follows them live as it follows a CLI run.
type temporalRuns struct {
	eng       *temporal.Engine
	store     trace.Store
	timeout   time.Duration // delegation.timeout: the whole run
	workflows string        // the workflows folder, where a workflow's file is read
	replies   *uiRunner     // its conversation store and follow-ups, shared with in-process runs
	// stopping is done when serve shuts down. The web UI cancels the runs
	// it started when it stops; a durable run must outlive this process, so
	// a Cancel after that is not passed on.
	stopping <-chan struct{}
}

// Start submits the run and returns once a worker has recorded it (the
// core.Runner contract: the timeline the browser is sent to finds it).
func (t *temporalRuns) Start(ctx context.Context, r core.RunRequest) (core.Execution, error) {
	// A slash command's agent is no file a worker could load, and an outside
	// caller's exposure level (expose.permissions) is not carried by the
	// workflow's request: both run in this process, which enforces them,
	// rather than on a worker that would run with the agent's own tools.
	if r.Inline != nil || r.Tools != nil {
		return t.replies.Start(ctx, r)
	}
	// A budget (the run page's "continue with a larger budget") is counted
	// by the run's ledger on the workers, as for `agentry run --budget-*`.
	req := delegation.Request{Agent: r.Agent, Task: r.Task, Model: r.Model, Budget: r.Budget}
	// The caller and its traceparent go on the root span the worker opens;
	// the worker's model calls do not send the caller's traceparent (the
	// ctx of callerOf stays in this process), the exported trace joins it.
	_, req.Attributes = callerOf(ctx, r.Caller, r.TraceParent)
	if err := t.replies.followUp(ctx, r.Continue, &req); err != nil { // the reply box (serve.go)
		return nil, err
	}
	x, err := t.eng.Start(ctx, req, t.timeout)
	if err != nil {
		return nil, err
	}
	return t.follow(ctx, x.RunID(), x.Cancel, func() {
		res, err := x.Wait(context.Background())
		if err != nil || t.replies.store == nil {
			return
		}
		// So it can be replied to; a failure loses only that, and says so.
		if err := followup.Save(context.Background(), t.replies.store, res, len(req.History)); err != nil {
			t.replies.log.Warn("the run cannot be replied to: its conversation was not saved", "run", res.RunID, "err", err)
		}
	})
}

// StartWorkflow submits a workflow run from the workflows pages' start
// form (core.WorkflowRunner), with the file's text as it is now. A run with
// an outside caller's exposure level runs in this process, as an agent's
// does (Start).
func (t *temporalRuns) StartWorkflow(ctx context.Context, r core.WorkflowRunRequest) (core.Execution, error) {
	if r.Tools != nil {
		return uiWorkflows{t.replies}.Start(ctx, r)
	}
	path := r.Workflow.File
	if !filepath.IsAbs(path) {
		path = filepath.Join(t.workflows, path)
	}
	source, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	_, attrs := callerOf(ctx, r.Caller, r.TraceParent)
	x, err := t.eng.StartWorkflow(ctx, r.Workflow.File, source, r.Inputs, r.Model, r.Workflow.Timeout, attrs)
	if err != nil {
		return nil, err
	}
	f := &temporalFlow{}
	f.temporalExecution, err = t.follow(ctx, x.RunID(), x.Cancel, func() { f.res, _ = x.Wait(context.Background()) })
	if err != nil {
		return nil, err
	}
	return f, nil
}

// temporalFlow is a workflow run going on Temporal workers: once Done, it
// keeps how the run ended and the report the worker made
// (web/core.WorkflowResult), for the doors that answer with them.
type temporalFlow struct {
	*temporalExecution
	res temporal.WorkflowRunResult // written before done closes
}

// Result is how the run ended; nil until Done is closed.
func (f *temporalFlow) Result() *workflow.Result {
	select {
	case <-f.done:
		return f.res.Result
	default:
		return nil
	}
}

// Report is the run's Markdown report; "" until Done is closed.
func (f *temporalFlow) Report() string {
	if f.Result() == nil {
		return ""
	}
	return f.res.Report
}

// follow returns the execution of submitted run id once a worker has
// recorded it; wait returns when the run's workflow has ended.
func (t *temporalRuns) follow(ctx context.Context, id string, cancel func(context.Context) error, wait func()) (*temporalExecution, error) {
	ex := &temporalExecution{id: id, cancel: cancel, done: make(chan struct{}), stopping: t.stopping}
	go func() {
		defer close(ex.done)
		wait()
	}()
	if err := waitRecorded(ctx, t.store, id, ex.done); err != nil {
		return nil, fmt.Errorf("run %s was submitted to Temporal, but %w", id, err)
	}
	return ex, nil
}

// temporalFlows adapts temporalRuns to core.WorkflowRunner.
type temporalFlows struct{ t *temporalRuns }

func (f temporalFlows) Start(ctx context.Context, r core.WorkflowRunRequest) (core.Execution, error) {
	return f.t.StartWorkflow(ctx, r)
}

// waitRecorded waits until run id is in the store (a worker's first step
// records it), the run's workflow ended, or pickupWait passed.
func waitRecorded(ctx context.Context, store trace.Store, id string, ended <-chan struct{}) error {
	deadline := time.NewTimer(pickupWait)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := store.Run(ctx, id); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return fmt.Errorf("no worker recorded it within %s: is `agentry worker` running on task queue and trace store of this serve?", pickupWait)
		case <-ended:
			if _, err := store.Run(ctx, id); err == nil {
				return nil
			}
			return errors.New("its workflow ended without recording it")
		case <-tick.C:
		}
	}
}

// temporalExecution is a run going on Temporal workers (core.Execution).
type temporalExecution struct {
	id       string
	cancel   func(context.Context) error
	done     chan struct{}
	stopping <-chan struct{}
}

func (e *temporalExecution) RunID() string         { return e.id }
func (e *temporalExecution) Done() <-chan struct{} { return e.done }

// Cancel cancels the run's workflow, unless serve is shutting down (see
// temporalRuns.stopping).
func (e *temporalExecution) Cancel() {
	select {
	case <-e.stopping:
		return
	case <-e.done:
		return
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = e.cancel(ctx)
}

// onTemporal makes the web's start forms submit to Temporal.
func onTemporal(ctx context.Context, cfg config.Config, store traceDB, replies *uiRunner, log *slog.Logger, webCfg *web.Config) (func(), error) {
	eng, err := temporal.Dial(ctx, cfg.TemporalEngine(), log)
	if err != nil {
		return nil, err
	}
	dir := cfg.Workflows
	if dir == "" {
		dir = "workflows"
	}
	t := &temporalRuns{eng: eng, store: store, timeout: cfg.Delegation.Timeout.D(), stopping: ctx.Done(), workflows: dir, replies: replies}
	webCfg.Runtime, webCfg.WorkflowRuntime = t, temporalFlows{t}
	// /readyz asks the frontend too.
	webCfg.Ready = append(webCfg.Ready, web.Check{Name: "temporal", Run: eng.CheckHealth})
	stopReconcile := reconcileDurable(eng, store, log) // serve_temporal_cancel.go
	return func() { stopReconcile(); eng.Close() }, nil
}
