package runs

import (
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/web/core"
)

// DurableCanceller is a Runner whose runs no process owns
// (trace.Run.Durable: engine: temporal). It cancels a durable run by its
// ID whichever process started it, so the Cancel button is offered on
// every serve that reads the run, and on this one after a restart, not
// only on the serve that started it.
type DurableCanceller = core.DurableCanceller

// durableCanceller returns the runner's DurableCanceller when run is a
// running durable run it can cancel, else nil.
func (rp *Pages) durableCanceller(run trace.Run) DurableCanceller {
	dc, ok := rp.runner.(DurableCanceller)
	if !ok || !run.Durable || run.Status != trace.StatusRunning {
		return nil
	}
	return dc
}
