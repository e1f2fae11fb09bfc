package delegation

import (
	"context"
	"encoding/json"

	"github.com/agentry/agentry/delegation/hooks"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/trace/semconv"
)

// hook fires p when hooks are configured and records every hook run as a
// "hook" event on sp. It reports whether a hook blocked, and why.
func (rn *run) hook(ctx context.Context, sp *span, p hooks.Point, ev hooks.Event) (bool, string) {
	h := rn.rt.cfg.Hooks
	if h == nil {
		return false, ""
	}
	ev.SessionID, ev.RunID, ev.SpanID = rn.trace.ID, rn.trace.ID, sp.s.ID
	out := h.Fire(ctx, p, ev)
	for _, r := range out.Runs {
		attrs := map[string]any{
			semconv.EventAttrHook: string(p), semconv.EventAttrCommand: r.Command,
			semconv.EventAttrDurationMS: r.Duration.Milliseconds(), semconv.EventAttrVerdict: r.Verdict,
		}
		if r.Reason != "" {
			attrs[semconv.EventAttrReason] = r.Reason
		}
		if r.Err != "" {
			attrs[semconv.EventAttrError] = r.Err
		}
		sp.event(semconv.EventHook, attrs)
	}
	return out.Block, out.Reason
}

// toolEvent is the pre_tool/post_tool event of call c.
func (inv *invocation) toolEvent(c model.ToolCall) hooks.Event {
	if inv.rn.rt.cfg.Hooks == nil {
		return hooks.Event{} // nobody reads it
	}
	ev := hooks.Event{Agent: inv.agent.Name, Depth: inv.depth, ToolName: c.Name, ToolUseID: c.ID}
	if json.Valid(c.Args) {
		ev.ToolInput = c.Args
	}
	if t, ok := inv.tools[c.Name]; ok { // a hook's If reads the command line
		arg, has, err := tool.PatternArgument(t, c.Args)
		ev.Argument, ev.HasArgument = arg, has && err == nil
	}
	return ev
}

// subagentEvent is the subagent_start/subagent_stop event of delegation d.
func (inv *invocation) subagentEvent(d *delegation) hooks.Event {
	return hooks.Event{Agent: inv.agent.Name, Depth: inv.depth, AgentType: d.target.Name,
		ToolName: DelegateTool, ToolUseID: d.call.ID, Task: d.task}
}

// chatCost is the cost_usd attribute of a chat span, nil without a price.
func (inv *invocation) chatCost(resp *model.Response) map[string]any {
	p := inv.rn.rt.cfg.Prices
	if p == nil {
		return nil
	}
	usd, ok := p.Cost(inv.model.spec, resp.InputTokens, resp.OutputTokens, resp.CachedInputTokens)
	if !ok {
		return nil
	}
	inv.rn.addCost(usd) // the run's total and the USD budget (budget.go)
	return map[string]any{semconv.AttrCostUSD: usd}
}
