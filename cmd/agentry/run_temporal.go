package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agentry/agentry/cmd/agentry/answer"
	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/temporal"
)

// runOnTemporal submits the run and prints its progress from the trace
// store the workers write, then its result, as an in-process run does.
// Ctrl-C cancels the run's workflow and waits for it to end.
func (s *session) runOnTemporal(ctx context.Context, cfg config.Config, store traceDB, req delegation.Request, asJSON bool, asker control.Asker) error {
	logger := s.warnLog()
	eng, err := temporal.Dial(ctx, cfg.TemporalEngine(), logger)
	if err != nil { // no Temporal server to submit to: the run never starts
		return s.refused(err, asJSON)
	}
	defer eng.Close()
	res, err := s.submitRun(ctx, eng, store, req, cfg.Delegation.Timeout.D(), asJSON, asker, logger)
	if err != nil && res.Error == "" {
		return err
	}
	printResult(s.stdout, res, asJSON)
	return resultCode(res)
}

// submitRun submits req and prints its progress from the trace store as
// the workers write it, until it ends; Ctrl-C cancels the run's workflow.
// A non-nil asker answers the run's approvals at this terminal.
func (s *session) submitRun(ctx context.Context, eng *temporal.Engine, store traceDB, req delegation.Request, timeout time.Duration, asJSON bool, asker control.Asker, logger *slog.Logger) (delegation.Result, error) {
	x, err := eng.Start(ctx, req, timeout)
	if err != nil {
		return delegation.Result{}, err
	}
	if asker != nil {
		actx, stopAsking := context.WithCancel(ctx)
		defer stopAsking()
		go answer.Relay(actx, eng, store, x.RunID(), asker, logger)
	}
	var res delegation.Result
	follow(ctx, x.Cancel, func(done <-chan struct{}) { s.progress(asJSON).Tail(store, x.RunID(), done) },
		func() { res, err = x.Wait(ctx) })
	return res, err
}

// follow waits for a run on Temporal (wait) while tail prints it, until
// done closes; Ctrl-C or SIGTERM meanwhile cancels the run's workflow
// (cancel), whose end wait then returns.
func follow(ctx context.Context, cancel func(context.Context) error, tail func(done <-chan struct{}), wait func()) {
	sig, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	done, tailed := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(tailed)
		tail(done)
	}()
	go func() {
		select {
		case <-sig.Done():
			if ctx.Err() == nil {
				_ = cancel(context.Background())
			}
		case <-done:
		}
	}()
	wait()
	close(done)
	<-tailed
}
