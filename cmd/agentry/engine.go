package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/trace"
)

// Engines a run can go to (config engine:).
const (
	EngineInProcess = "inprocess"
	EngineTemporal  = "temporal"
)

// TemporalConfig is the temporal: section: where engine: temporal submits
// runs and which task queue `agentry worker` serves (docs/temporal.md).
type TemporalConfig struct {
	Address   string `yaml:"address"`    // the frontend's host:port
	Namespace string `yaml:"namespace"`  // must exist on the server
	TaskQueue string `yaml:"task_queue"` // the queue workers poll
}

func (c Config) validateEngine() error {
	switch c.Engine {
	case EngineInProcess, EngineTemporal:
	default:
		return fmt.Errorf("config: engine must be %s or %s, got %q", EngineInProcess, EngineTemporal, c.Engine)
	}
	if c.Engine == EngineTemporal && (c.Temporal.Address == "" || c.Temporal.Namespace == "" || c.Temporal.TaskQueue == "") {
		return errors.New("config: temporal: address, namespace and task_queue must not be empty")
	}
	return nil
}

func (c Config) temporal() temporal.Config {
	return temporal.Config{Address: c.Temporal.Address, Namespace: c.Temporal.Namespace, TaskQueue: c.Temporal.TaskQueue}
}

// workerCommand serves runs from the task queue: the same runtime as an
// in-process run (agents, models, tools, MCP servers, hooks), its steps
// called by Temporal, its spans written to the same trace database.
func workerCommand(ctx context.Context, s *session, args []string) int {
	fs := s.flagSet("worker")
	rest, code, ok := s.parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		return s.usageError(fs, "worker takes no arguments, got %q", rest[0])
	}
	cfg, err := s.loadConfig(fs)
	if err != nil {
		return s.badConfig(err)
	}
	reg, closeAgents, err := s.openAgents(ctx, cfg, true)
	if err != nil {
		return s.fail(err)
	}
	defer closeAgents()
	store, err := openStore(cfg.DB)
	if err != nil {
		return s.fail(err)
	}
	defer store.Close()
	logger := slog.New(slog.NewTextHandler(s.stderr, &slog.HandlerOptions{Level: slog.LevelWarn, ReplaceAttr: trace.RedactAttr}))
	rec := trace.NewRecorder(store, trace.RecorderConfig{Logger: logger})
	defer rec.Close(context.Background())
	// Spans go out over OTLP from the workers, as from an in-process run.
	ctx, sink, otelDone, err := s.withOtel(ctx, cfg, rec, logger, false)
	if err != nil {
		return s.badConfig(err)
	}
	defer otelDone()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	approvals, _ := store.(trace.ApprovalStore) // calls that ask wait for rows in it (delegation/temporal/approval.go)
	rt, stopTools, err := s.newRuntime(ctx, cfg, reg, sink, logger, func(c *delegation.Config) { c.Approvals = approvals })
	if err != nil {
		return s.fail(err)
	}
	defer stopTools()
	eng, err := temporal.Dial(ctx, cfg.temporal(), logger)
	if err != nil {
		return s.fail(err)
	}
	defer eng.Close()
	t := eng.Config()
	err = eng.Serve(ctx, &temporal.Activities{Steps: rt.Steps(), Flush: rec.Flush}, func() {
		fmt.Fprintf(s.stdout, "agentry worker: serving task queue %q of namespace %q at %s\n", t.TaskQueue, t.Namespace, t.Address)
	})
	if err != nil {
		return s.fail(err)
	}
	return 0
}

// runOnTemporal submits the run and prints its progress from the trace
// store the workers write, then its result, as an in-process run does.
// Ctrl-C cancels the run's workflow and waits for it to end.
func (s *session) runOnTemporal(ctx context.Context, cfg Config, store trace.Store, req delegation.Request, asJSON bool, asker control.Asker) int {
	logger := slog.New(slog.NewTextHandler(s.stderr, &slog.HandlerOptions{Level: slog.LevelWarn, ReplaceAttr: trace.RedactAttr}))
	eng, err := temporal.Dial(ctx, cfg.temporal(), logger)
	if err != nil {
		return s.fail(err)
	}
	defer eng.Close()
	res, err := s.submitRun(ctx, eng, store, req, cfg.Delegation.Timeout, asJSON, asker, logger)
	if err != nil && res.Error == "" {
		return s.fail(err)
	}
	printResult(s.stdout, res, asJSON)
	if res.Status != trace.StatusOK {
		return 1
	}
	return 0
}

// submitRun submits req and prints its progress from the trace store as
// the workers write it, until it ends; Ctrl-C cancels the run's workflow.
// A non-nil asker answers the run's approvals at this terminal.
func (s *session) submitRun(ctx context.Context, eng *temporal.Engine, store trace.Store, req delegation.Request, timeout time.Duration, asJSON bool, asker control.Asker, logger *slog.Logger) (delegation.Result, error) {
	x, err := eng.Start(ctx, req, timeout)
	if err != nil {
		return delegation.Result{}, err
	}
	p := &progress{w: s.stdout}
	if asJSON {
		p = &progress{w: s.stderr, warningsOnly: true}
	}
	sig, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan struct{})
	tailed := make(chan struct{})
	go func() {
		defer close(tailed)
		tail(store, x.RunID(), p, done)
	}()
	go func() {
		select {
		case <-sig.Done():
			if ctx.Err() == nil {
				_ = x.Cancel(context.Background())
			}
		case <-done:
		}
	}()
	if approvals, ok := store.(trace.ApprovalStore); ok && asker != nil {
		actx, stopAsking := context.WithCancel(ctx)
		defer stopAsking()
		go askOnTemporal(actx, eng, approvals, x.RunID(), asker, logger)
	}
	res, err := x.Wait(ctx)
	close(done)
	<-tailed
	return res, err
}

// tail feeds the run's spans to p as the workers store them, until done is
// closed. An agent that started and ended between two reads is fed as
// started first, so its "▶ started" line is printed as in-process.
func tail(store trace.Store, runID string, p *progress, done <-chan struct{}) {
	seen := map[string]bool{}
	followSpans(store, runID, done, func(sp trace.Span) {
		if !seen[sp.ID] && sp.Kind == trace.KindInvokeAgent && sp.Status.IsFinal() {
			started := sp
			started.Status, started.Error, started.EndedAt = trace.StatusRunning, "", time.Time{}
			p.RecordSpan(started)
		}
		seen[sp.ID] = true
		p.RecordSpan(sp)
	})
}

// followSpans reads the run's spans written since the last read every
// 100 ms until done is closed, then once more, so the records written last
// are read too, and hands each read's spans to each in start order: change
// order puts a parent that ended after its children last, and start order
// prints it first, as in-process.
func followSpans(store trace.Store, runID string, done <-chan struct{}, each func(trace.Span)) {
	var cursor int64
	read := func() {
		spans, next, err := store.SpansSince(context.Background(), runID, cursor)
		if err != nil {
			return
		}
		cursor = next
		slices.SortStableFunc(spans, func(a, b trace.Span) int { return a.StartedAt.Compare(b.StartedAt) })
		for _, sp := range spans {
			each(sp)
		}
	}
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-done:
			read()
			return
		case <-t.C:
			read()
		}
	}
}
