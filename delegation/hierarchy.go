package delegation

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// Limits is the limit hierarchy of seed 001 §7.1. Every limit that trips
// ends its scope with status limit and the work done so far, and says so on
// the span where it tripped; a cap on agents at once (TurnAgents) queues
// instead. In a Config the zero value of a field turns its limit off
// (DispatchToolCalls excepted: dispatched agents always have a cap);
// DefaultLimits has the document's figures, which the binary gives
// orchestrator conversations, and Plain what it gives every other run.
type Limits struct {
	// ToolTimeout bounds each tool call (0 = none).
	ToolTimeout time.Duration
	// DispatchToolCalls is max_tool_calls of a dispatched agent whose
	// dispatch does not set it. 0 means DefaultDispatchToolCalls.
	DispatchToolCalls int
	// DispatchTimeout bounds a dispatched agent whose dispatch sets no
	// timeout of its own (0 = none): one that runs out ends timeout, and
	// its dispatcher reads that and goes on.
	DispatchTimeout time.Duration
	// TurnAgents caps how many of the agents one model turn of an
	// invocation starts in the background (dispatched, or delegated with
	// background: true or parallel_streaming) run at once; the others wait
	// in line. TurnToolCalls caps the tool calls the agents one turn
	// dispatched make together (0 = no cap).
	TurnAgents, TurnToolCalls int
	// OrchestratorTurns caps the model calls of one orchestrator
	// invocation (seed 001's max_orchestrator_loop_iterations; 0 = only
	// max_turns): it then ends limit with its partial-progress report.
	OrchestratorTurns int
	// WindowCalls caps the tool calls of a conversation (a run, or a chat
	// and its follow-ups) in any Window (0 = no cap).
	WindowCalls int
	Window      time.Duration
	// BreakerFailures opens a tool's circuit (and its MCP server's) in a
	// conversation after that many consecutive failures of what the tool
	// depends on; it half-opens after BreakerCooldown (0 = no breakers).
	BreakerFailures int
	BreakerCooldown time.Duration
}

// DefaultLimits are seed 001's figures: 30 s per tool call, 5 tool calls and
// 30 s per dispatched agent, 8 agents at once and 30 tool calls per turn,
// 6 model calls per orchestrator invocation, 50 calls in any 5 minutes of a
// conversation, and breakers that open after 5 consecutive failures and
// half-open after 30 s.
func DefaultLimits() Limits {
	return Limits{ToolTimeout: 30 * time.Second, DispatchToolCalls: DefaultDispatchToolCalls, DispatchTimeout: 30 * time.Second,
		TurnAgents: 8, TurnToolCalls: 30, OrchestratorTurns: 6,
		WindowCalls: 50, Window: 5 * time.Minute, BreakerFailures: 5, BreakerCooldown: 30 * time.Second}
}

// Plain is l without the limits that belong to an orchestrator
// conversation (the per-turn caps, the orchestrator's loop limit and the
// conversation window): what a plain delegation tree runs under, where a
// Claude Code-style agent makes hundreds of tool calls and a parent
// delegates thousands of times. The tool timeout and the breakers guard
// tools in every run; the dispatch defaults apply only to dispatched agents.
func (l Limits) Plain() Limits {
	l.TurnAgents, l.TurnToolCalls, l.OrchestratorTurns, l.WindowCalls, l.Window = 0, 0, 0, 0, 0
	return l
}

func (l Limits) dispatchToolCalls() int {
	if l.DispatchToolCalls > 0 {
		return l.DispatchToolCalls
	}
	return DefaultDispatchToolCalls
}

// orchestrates reports whether a's file makes it an orchestrator, whose
// conversations run under Config.OrchestratorLimits.
func orchestrates(a registry.Agent) bool { return a.Subagents.Dispatch || a.Orchestrator }

// limitsFor is the limit hierarchy agent a works under: an orchestrator's
// (Config.OrchestratorLimits, when set), else Config.Limits.
func (r *Runtime) limitsFor(a registry.Agent) Limits {
	if orchestrates(a) && r.cfg.OrchestratorLimits != nil {
		return *r.cfg.OrchestratorLimits
	}
	return r.cfg.Limits
}

// limits is what this invocation's own caps come from (its turns, its
// background agents, the agents it dispatches): an orchestrator's own,
// wherever it runs, else its run's.
func (inv *invocation) limits() Limits {
	if orchestrates(inv.agent) {
		return inv.rn.rt.limitsFor(inv.agent)
	}
	return inv.rn.limits
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
	l := inv.rn.limits
	n, why := ToolCallCap(inv.toolCalls, len(calls), inv.maxToolCalls)
	if g, w := inv.turnOf.take(n); g < n {
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
	rest, stop := inv.notRun(calls[n:], why)
	return append(results, rest...), stop
}

// notRun answers calls a limit keeps from running (their results say why),
// marks the invocation's span with the limit, and returns the outcome it
// ends with; its result, the work so far, is filled in by the caller.
func (inv *invocation) notRun(calls []model.ToolCall, why string) ([]string, *outcome) {
	results := make([]string, len(calls))
	for i := range calls {
		results[i] = notRunPrefix + why
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
	return n, fmt.Sprintf("%v: %d calls asked for with %d of max_tool_calls %d left (max_tool_calls)", ErrToolCallLimit, asked, n, limit)
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
	d := inv.rn.limits.ToolTimeout
	if t, ok := inv.tools[name].(ownTimeout); d <= 0 || ok && t.OwnTimeout() {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, d, fmt.Errorf("%w after %s (limits.tool_timeout)", ErrToolTimeout, d))
}

// callGuarded calls an allowed tool through its circuit breakers in this
// conversation: an open circuit answers at once with a circuit error the
// model can act on, and the call's outcome is counted on its circuits when
// it says something of the tool's dependency (a success, or a failure
// dependencyFailed names; a call cut short by the run's end counts for
// nothing). The states are on the span.
func (inv *invocation) callGuarded(ctx context.Context, t tool.Tool, c model.ToolCall) (trace.Status, string, error) {
	rn := inv.rn
	states, refused := rn.rt.breakers.admit(rn.limits, rn.conversation, c.Name, rn.rt.cfg.Now())
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
	cause := context.Cause(ctx)
	timedOut := errors.Is(cause, ErrToolTimeout)
	if err == nil || cause == nil || timedOut {
		rn.rt.breakers.record(rn.limits, rn.conversation, c.Name, err != nil && (timedOut || dependencyFailed(err)), rn.rt.cfg.Now())
	}
	if errors.Is(err, tool.ErrDenied) {
		return trace.StatusDenied, "", err
	}
	if err != nil {
		return trace.StatusError, "", err
	}
	return trace.StatusOK, out, nil
}
