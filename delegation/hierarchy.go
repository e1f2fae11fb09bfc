package delegation

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/trace"
)

// Limits is the limit hierarchy of seed 001 §7.1. Every limit that trips
// ends its scope with status limit and the work done so far, and says so on
// the span where it tripped. In a Config the zero value of a field turns
// its limit off (DispatchToolCalls excepted: dispatched agents always have
// a cap); DefaultLimits has the document's figures, which the binary uses.
type Limits struct {
	// ToolTimeout bounds each tool call (0 = none).
	ToolTimeout time.Duration
	// DispatchToolCalls is max_tool_calls of a dispatched agent whose
	// dispatch does not set it. 0 means DefaultDispatchToolCalls.
	DispatchToolCalls int
	// TurnAgents caps the agents one invocation starts in the background
	// (dispatched or delegated with background: true), and TurnToolCalls
	// the tool calls those agents make together (0 = no cap).
	TurnAgents, TurnToolCalls int
	// WindowCalls caps the tool calls of a conversation (a run, or a chat
	// and its follow-ups) in any Window (0 = no cap).
	WindowCalls int
	Window      time.Duration
	// BreakerFailures opens a tool's circuit (and its MCP server's) after
	// that many consecutive failures; it half-opens after BreakerCooldown
	// (0 = no breakers).
	BreakerFailures int
	BreakerCooldown time.Duration
}

// DefaultLimits are seed 001's figures: 30 s per tool call, 5 tool calls per
// dispatched agent, 8 agents and 30 tool calls per turn, 50 calls in any 5
// minutes of a conversation, and breakers that open after 5 consecutive
// failures and half-open after 30 s.
func DefaultLimits() Limits {
	return Limits{ToolTimeout: 30 * time.Second, DispatchToolCalls: DefaultDispatchToolCalls, TurnAgents: 8, TurnToolCalls: 30,
		WindowCalls: 50, Window: 5 * time.Minute, BreakerFailures: 5, BreakerCooldown: 30 * time.Second}
}

func (l Limits) dispatchToolCalls() int {
	if l.DispatchToolCalls > 0 {
		return l.DispatchToolCalls
	}
	return DefaultDispatchToolCalls
}

// ErrToolCallLimit ends an agent that used its max_tool_calls.
var ErrToolCallLimit = errors.New("tool call limit reached")

// executeCapped is execute under the limits on tool calls: the
// invocation's max_tool_calls, its turn's cap when it is a dispatched
// agent, and the conversation's window. A limit trips when a turn asks for
// more calls than are left: those within it run, the rest are not run
// (their result says why), and the invocation stops with status limit;
// its result, the work so far, is filled in by the caller. A turn that uses
// a cap up exactly goes on, so the agent can still answer.
func (inv *invocation) executeCapped(ctx context.Context, calls []model.ToolCall) ([]string, *outcome) {
	l := inv.rn.rt.cfg.Limits
	n, why := ToolCallCap(inv.toolCalls, len(calls), inv.maxToolCalls)
	if g, w := inv.turnOf.take(l, n); g < n {
		n, why = g, w
	}
	if g, w := inv.rn.rt.windows.take(l, inv.rn.conversation, n, inv.rn.rt.cfg.Now()); g < n {
		n, why = g, w
	}
	results := inv.execute(ctx, calls[:n])
	inv.toolCalls += n
	if n == len(calls) {
		return results, nil
	}
	for range calls[n:] {
		results = append(results, "not run: "+why)
	}
	inv.span.event(EventLimit, map[string]any{EventAttrReason: why})
	return results, &outcome{status: trace.StatusLimit, err: why}
}

// ToolCallCap grants up to asked tool calls to an agent that made used of
// its max_tool_calls limit (0 = none), with why the rest may not run.
func ToolCallCap(used, asked, limit int) (int, string) {
	if limit <= 0 || used+asked <= limit {
		return asked, ""
	}
	n := max(limit-used, 0)
	return n, fmt.Sprintf("%v: %d calls asked for with %d of max_tool_calls %d left", ErrToolCallLimit, asked, n, limit)
}

// EventLimit is an event on an invoke_agent span whose agent a limit
// stopped; EventAttrReason says which.
const EventLimit = "limit"

// ErrToolTimeout is the cause of a tool call cut off by Limits.ToolTimeout.
var ErrToolTimeout = errors.New("tool timed out")

// ownTimeout is implemented by tools that bound their calls themselves
// (shell.run's timeout_s); Limits.ToolTimeout leaves them alone.
type ownTimeout interface{ OwnTimeout() bool }

// toolTimeout bounds one call of the tool named name by Limits.ToolTimeout.
func (inv *invocation) toolTimeout(ctx context.Context, name string) (context.Context, context.CancelFunc) {
	d := inv.rn.rt.cfg.Limits.ToolTimeout
	if t, ok := inv.tools[name].(ownTimeout); d <= 0 || ok && t.OwnTimeout() {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, d, fmt.Errorf("%w after %s (limits.tool_timeout)", ErrToolTimeout, d))
}

// callGuarded calls an allowed tool through its circuit breakers: an open
// circuit answers at once with a circuit error the model can act on, and
// the call's outcome is counted on its circuits (a call cut short by the
// run's end is not the tool's failure). The states are on the span.
func (inv *invocation) callGuarded(ctx context.Context, t tool.Tool, c model.ToolCall) (trace.Status, string, error) {
	rt := inv.rn.rt
	states, refused := rt.breakers.admit(rt.cfg.Limits, c.Name, rt.cfg.Now())
	if tc := tool.CallFrom(ctx); tc != nil && len(states) > 0 {
		tc.SetAttribute(AttrCircuit, states[0])
		if len(states) > 1 {
			tc.SetAttribute(AttrCircuitServer, states[1])
		}
	}
	if refused != nil {
		return trace.StatusError, "", refused
	}
	out, err := callSafely(ctx, t, c)
	if context.Cause(ctx) == nil || errors.Is(context.Cause(ctx), ErrToolTimeout) {
		rt.breakers.record(rt.cfg.Limits, c.Name, err != nil, rt.cfg.Now())
	}
	if err != nil {
		return trace.StatusError, "", err
	}
	return trace.StatusOK, out, nil
}
