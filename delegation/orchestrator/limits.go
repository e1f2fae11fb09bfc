package orchestrator

import (
	"errors"
	"time"

	"github.com/agentry/agentry/registry"
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

// Orchestrates reports whether a's file makes it an orchestrator, whose
// conversations run under the orchestrator's limits.
func Orchestrates(a *registry.Agent) bool { return a.Subagents.Dispatch || a.Orchestrator }

// ErrToolTimeout is the cause of a tool call cut off by Limits.ToolTimeout.
var ErrToolTimeout = errors.New("tool timed out")
