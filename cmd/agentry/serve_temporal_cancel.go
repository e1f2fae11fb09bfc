package main

import (
	"context"
	"log/slog"

	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/trace"
)

// CancelDurable cancels a durable run's workflow by its ID (the run ID),
// whichever serve or CLI started it (web/runs.DurableCanceller): with
// engine: temporal every serve, and this one after a restart, offers
// Cancel on a running durable run.
func (t *temporalRuns) CancelDurable(ctx context.Context, runID string) error {
	return t.eng.CancelRun(ctx, runID)
}

// reconcileDurable checks, every reapInterval, a batch of running durable
// runs against Temporal and ends the records of those whose workflow
// closed without ending them (temporal.Reconciler): serve's reaper for
// runs no process owns. It returns a function that stops it.
func reconcileDurable(eng *temporal.Engine, store traceDB, log *slog.Logger) (stop func()) {
	return trace.StartSweep(reapInterval, eng.NewReconciler(store).Tick, log,
		"temporal: checking running durable runs", "temporal: runs whose workflow closed without ending them were ended")
}
