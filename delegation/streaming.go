package delegation

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/registry"
)

// streamingTurn reports whether this turn's delegate calls run as a
// parallel_streaming batch: the batch's mode (the file's, or what the calls
// ask within it) is parallel_streaming and no call uses depends_on (a DAG
// batch runs as parallel). Its calls then start in the background, and the
// model is called again as each result lands (nextLanding).
func (inv *invocation) streamingTurn(calls []model.ToolCall) bool {
	if inv.agent.Subagents.Execution != registry.ParallelStreaming {
		return false // calls may ask for no more than the file's mode
	}
	var ds []*delegation
	for i, c := range calls {
		if c.Name != DelegateTool {
			continue
		}
		d := inv.newDelegation(i, c)
		if len(d.args.DependsOn) > 0 || d.args.ID != "" && d.argErr != nil {
			return false
		}
		ds = append(ds, d)
	}
	if len(ds) == 0 {
		return false
	}
	e := inv.batchMode(ds)
	return e.mode == registry.ParallelStreaming
}

// nextLanding returns, after a turn, the message that gives the model every
// streamed result landed so far and the names of those still running (""
// when there is none to give). After a turn whose calls were all streamed
// delegations the model has nothing to read yet, so it first waits for the
// next result to land; after any other turn it does not wait.
func (inv *invocation) nextLanding(ctx context.Context, calls []model.ToolCall) string {
	if inv.jobs == nil {
		return ""
	}
	var open []*job
	inv.jobs.mu.Lock()
	for _, j := range inv.jobs.order {
		if j.stream && !j.collected {
			open = append(open, j)
		}
	}
	inv.jobs.mu.Unlock()
	if len(open) == 0 {
		return ""
	}
	if inv.streamTurn && onlyStreamed(calls) {
		inv.waitAny(ctx, open)
	}
	now := inv.rn.rt.cfg.Now()
	var landed []agentReport
	var running []string
	inv.jobs.mu.Lock()
	for _, j := range open {
		r := j.report(now)
		if r.Status == "running" {
			running = append(running, j.id+" ("+j.agent+")")
			continue
		}
		j.collected = true
		landed = append(landed, r)
	}
	inv.jobs.mu.Unlock()
	return Landed(landed, running)
}

// Landed is the message that gives the model the streamed results landed
// (none: "") and names those still running ("id (agent)").
func Landed(landed []AgentReport, running []string) string {
	if len(landed) == 0 {
		return ""
	}
	b, _ := json.Marshal(map[string]any{"agents": landed})
	msg := "Delegation results that have landed:\n" + string(b)
	if len(running) > 0 {
		msg += "\nStill running: " + strings.Join(running, ", ") + ". You may start follow-up work now; their results come as they land."
	}
	return msg
}

// StreamsTurn reports whether a turn's delegate calls stream, as the
// in-process turn decides (streamingTurn), for an engine that runs them as
// background jobs through Steps.Dispatch.
func StreamsTurn(f Frame, calls []model.ToolCall) bool {
	if !f.Schedule.Streaming {
		return false
	}
	inv := &invocation{}
	inv.agent.Subagents.Execution = registry.ParallelStreaming
	return inv.streamingTurn(calls)
}

// OnlyDelegates reports whether a turn's calls were all delegate calls: a
// streaming turn of those waits for the next result to land.
func OnlyDelegates(calls []model.ToolCall) bool { return onlyStreamed(calls) }

// onlyStreamed reports whether a turn's calls were all delegate calls, which
// in a streaming turn all started in the background.
func onlyStreamed(calls []model.ToolCall) bool {
	for _, c := range calls {
		if c.Name != DelegateTool {
			return false
		}
	}
	return len(calls) > 0
}

// waitAny waits until one of js has finished (or ctx ends), without
// holding a run-wide slot meanwhile.
func (inv *invocation) waitAny(ctx context.Context, js []*job) {
	for _, j := range js {
		select {
		case <-j.done:
			return
		default:
		}
	}
	if inv.slot {
		inv.rn.global.release()
		inv.slot = false
	}
	cases := make(chan struct{}, len(js))
	stop := make(chan struct{})
	defer close(stop)
	for _, j := range js {
		go func() {
			select {
			case <-j.done:
				cases <- struct{}{}
			case <-stop:
			}
		}()
	}
	select {
	case <-cases:
	case <-ctx.Done():
	}
	if err := inv.rn.global.acquire(ctx); err == nil {
		inv.slot = true
	}
}
