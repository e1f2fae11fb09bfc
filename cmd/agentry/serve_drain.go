package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agentry/agentry/web"
)

// errInterrupted is the cause of serve's context after Ctrl-C (SIGINT).
var errInterrupted = errors.New("interrupted")

// onSignals ends ctx on SIGTERM (cause context.Canceled: drain with the
// grace) or SIGINT (cause errInterrupted: no grace); a second signal
// closes hurry: skip what is left of the grace.
func onSignals(ctx context.Context) (_ context.Context, hurry <-chan struct{}, stop func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	hurried := make(chan struct{})
	go func() {
		first := true
		for sig := range sigs {
			switch {
			case !first:
				close(hurried)
				return
			case sig == os.Interrupt:
				cancel(errInterrupted)
			default:
				cancel(context.Canceled)
			}
			first = false
		}
	}()
	return ctx, hurried, func() { signal.Stop(sigs); cancel(nil) }
}

// drain shuts serve down: it stops accepting connections and runs (and
// /readyz says so), lets the runs in flight finish within the grace, then
// cancels the rest (ui.Close, which also ends the event streams) and waits
// for them to record their end. The recorder, closed after this returns,
// writes their final spans.
func drain(ctx context.Context, grace time.Duration, hurry <-chan struct{}, hs *http.Server, ui *web.Server, runs *uiRunner, ready *readiness, log *slog.Logger) error {
	grace = cmp.Or(grace, defaultShutdownGrace)
	if errors.Is(context.Cause(ctx), errInterrupted) {
		grace = 0
	}
	ready.draining.Store(true)
	runs.draining.Store(true)
	shutdown := make(chan error, 1)
	go func() { shutdown <- hs.Shutdown(context.Background()) }() // closes the listener now
	log.Info("shutting down: no new runs", "runs_in_flight", runs.inFlight.Load(), "grace", grace.String())
	if !runs.wait(grace, hurry) && runs.inFlight.Load() > 0 { // with no grace, wait can end before it sees none running
		log.Warn("cancelling the runs still going", "runs", runs.inFlight.Load())
	}
	ui.Close() // cancels what is left, ends event streams
	if !runs.wait(cancelWait, nil) {
		log.Error("runs did not end after cancel", "runs", runs.inFlight.Load())
	}
	select {
	case err := <-shutdown:
		if err != nil {
			return fmt.Errorf("shut down: %w", err)
		}
	case <-time.After(requestsWait):
		_ = hs.Close()
	}
	log.Info("stopped")
	return nil
}
