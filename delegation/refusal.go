package delegation

import (
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// AttrRefused is set on a delegate call's execute_tool span when the call
// never started its sub-agent because the runtime refused it; the value is
// one of the Refused* kinds and the span's error is the reason. A progress
// printer shows such spans as a line: "delegate → AGENT refused (KIND): REASON".
const AttrRefused = "refused"

// Kinds of refusal, the values of AttrRefused and of an
// EventDelegationWithheld event's EventAttrRefused (the loop's own are
// loop.RefusedArguments and loop.RefusedDependency).
const (
	RefusedDepth        = "depth"         // the child would run beyond max_depth
	RefusedNotNested    = "not_nested"    // a sub-agent without subagents.nested: true
	RefusedPermission   = "permission"    // subagents rules, the tool lists, a disabled agent, re-entry
	RefusedUnknownAgent = "unknown_agent" // no such agent
	RefusedMaxAgents    = "max_agents"    // delegation.max_agents_per_run reached
	RefusedModel        = "model"         // the target's model cannot be built
)

// EventLimit is an event on an invoke_agent span whose agent a limit
// stopped (loop.ActLimit); EventAttrReason says which.
const EventLimit = "limit"

// EventDelegationWithheld is an event on an invoke_agent span whose agent
// names sub-agents (subagents.allow) but is not offered the delegate tool at
// this depth, so its delegation stops silently otherwise. Attributes:
// EventAttrRefused (RefusedDepth or RefusedNotNested) and EventAttrReason.
const EventDelegationWithheld = "delegation_withheld"

// Attributes of an EventDelegationWithheld event.
const (
	EventAttrRefused = "refused"
	EventAttrReason  = "reason"
)

// refuse finishes d without starting its sub-agent, marking the span with
// the kind of refusal.
// extra, which the caller hands over, becomes the end record's map.
func (inv *invocation) refuse(d *delegation, status trace.Status, kind, reason string, extra map[string]any) {
	if extra == nil {
		extra = make(map[string]any, finishAttrs+1)
	}
	extra[AttrRefused] = kind
	inv.finish(d, status, "", reason, extra)
}

// mayDelegateKind names why MayDelegate denied this invocation.
// MayDelegate decides the agent's tool lists first (disallowedTools: Task,
// a Claude Code or VS Code tools list without Task): a permission.
func (inv *invocation) mayDelegateKind() string {
	switch d := inv.agent.Delegation; {
	case d.Denied || d.Refused != "":
		return RefusedPermission
	case inv.depth > 0 && !inv.agent.Subagents.Nested:
		return RefusedNotNested
	}
	return RefusedDepth
}

// withheld is the EventDelegationWithheld event for an agent that names
// sub-agents but is denied the delegate tool, else nil. It goes into the
// invoke_agent span's first record, so a printer sees it with the start.
func (inv *invocation) withheld(dec permissions.Decision) []trace.Event {
	if dec.Allowed || !namesSubagents(inv.agent) {
		return nil
	}
	return []trace.Event{{Name: EventDelegationWithheld, Attributes: map[string]any{
		EventAttrRefused: inv.mayDelegateKind(), EventAttrReason: dec.Reason,
	}}}
}

func namesSubagents(a registry.Agent) bool {
	return len(a.Subagents.Rules.Allow) > 0
}
