package trace

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// StartReaper calls s.MarkInterrupted every interval until the returned stop
// is called, so a long-running process (agentry serve) marks the runs of CLI
// processes killed since it opened the store. Call stop before closing s.
func StartReaper(s Store, every time.Duration, log *slog.Logger) (stop func()) {
	return StartSweep(every, s.MarkInterrupted, log,
		"trace: reaping runs of ended processes", "trace: runs of ended processes marked interrupted")
}

// StartSweep calls sweep every interval until the returned stop is called:
// the loop of StartReaper, and of any other check that ends runs nobody
// else will (serve's check of durable runs against Temporal). An error is
// logged as failed and retried at the next tick; a sweep that ended runs
// is logged as ended, with their count.
func StartSweep(every time.Duration, sweep func(context.Context) (int, error), log *slog.Logger, failed, ended string) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			n, err := sweep(ctx)
			if err != nil && ctx.Err() == nil {
				log.Warn(failed, "err", err)
			}
			if n > 0 {
				log.Info(ended, "runs", n)
			}
		}
	})
	return func() { cancel(); wg.Wait() }
}
