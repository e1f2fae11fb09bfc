package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/trace"
)

// On Temporal the calls that ask wait in the workers, but the person who
// answers is here: `agentry run`'s terminal, --approve and --deny-asks.
// askOnTemporal watches the run's pending approvals in the trace store,
// asks asker about each one, writes its answer to the store (where the
// first answer wins, so an answer from the web UI or `agentry approvals`
// stands) and signals the waiting workflow to read it now.
func askOnTemporal(ctx context.Context, eng *temporal.Engine, store trace.ApprovalStore, runID string, asker delegation.Asker, logger *slog.Logger) {
	asked := map[string]context.CancelFunc{}
	defer func() {
		for _, stop := range asked {
			stop()
		}
	}()
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		list, err := store.Approvals(ctx, trace.ApprovalFilter{RunID: runID, Status: trace.ApprovalPending})
		if err != nil {
			continue
		}
		pending := map[string]bool{}
		for _, a := range list {
			pending[a.ID] = true
			if asked[a.ID] != nil {
				continue
			}
			actx, stop := context.WithCancel(ctx)
			asked[a.ID] = stop
			go func() {
				ans, ok := asker.Answer(actx, a)
				if !ok || actx.Err() != nil {
					return
				}
				got, err := store.DecideApproval(context.WithoutCancel(actx), a.ID, ans)
				if err != nil {
					return // answered elsewhere first: theirs stands, and they signalled
				}
				if err := eng.Notify(context.WithoutCancel(actx), got); err != nil {
					logger.Warn("the waiting run reads the answer at its next poll", "approval", got.ID, "error", err)
				}
			}()
		}
		for id, stop := range asked { // answered elsewhere: stop asking (a terminal prompt)
			if !pending[id] {
				stop()
			}
		}
	}
}

// notifyTemporal tells a waiting Temporal run that approval a was answered
// (`agentry approvals approve|deny` with engine: temporal). Failing is not
// fatal: the run reads its row on a timer anyway.
func (s *session) notifyTemporal(ctx context.Context, cfg Config, a trace.Approval) {
	if cfg.Engine != EngineTemporal {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	eng, err := temporal.Dial(ctx, cfg.temporal(), nil)
	if err == nil {
		defer eng.Close()
		err = eng.Notify(ctx, a)
	}
	if err != nil {
		fmt.Fprintf(s.stderr, "⚠ warning: could not signal the run on Temporal (%v); it reads the answer within %s\n", err, temporal.MaxApprovalPoll)
	}
}
