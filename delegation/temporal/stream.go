package temporal

import (
	"go.temporal.io/sdk/workflow"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
)

// parallel_streaming on Temporal, as in-process (delegation/streaming.go):
// a streaming turn's delegate calls start through the Dispatch step as
// background jobs (each a goroutine running its child workflow), answered
// "running" at once; after each turn the model is given every streamed
// result landed so far. After a turn whose calls were all streamed
// delegations it first waits for the next one to land, in workflow time,
// without holding a run-wide slot.

// landing returns the message that gives the model the streamed results
// landed since it last had them ("" when there is none).
func (js *jobs) landing(ctx workflow.Context, calls []model.ToolCall) string {
	var open []*job
	for _, j := range js.order {
		if j.Stream && !j.collected {
			open = append(open, j)
		}
	}
	if len(open) == 0 {
		return ""
	}
	if js.streamed && delegation.OnlyDelegates(calls) && !anyDone(open) {
		giveSlot(ctx)
		_ = workflow.Await(ctx, func() bool { return anyDone(open) })
		takeSlot(ctx)
	}
	var landed []delegation.AgentReport
	var running []string
	for _, j := range open {
		if !j.done {
			running = append(running, j.ID+" ("+j.Agent+")")
			continue
		}
		j.collected = true
		landed = append(landed, delegation.Report(j.ID, j.Agent, j.o, j.calls, j.took))
	}
	return delegation.Landed(landed, running)
}

func anyDone(js []*job) bool {
	for _, j := range js {
		if j.done {
			return true
		}
	}
	return false
}
