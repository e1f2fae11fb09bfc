package config

import (
	"fmt"
	"time"

	"github.com/agentry/agentry/delegation/orchestrator"
	"github.com/agentry/agentry/permissions"
)

// AgentCompatConfig is the agent: section seed 003 writes in its settings;
// agentry reads the one key it shares with delegation.
type AgentCompatConfig struct {
	// MaxOrchestrationDepth is delegation.max_depth under seed 003's name.
	MaxOrchestrationDepth int `yaml:"max_orchestration_depth"`
}

// applyCompat moves seed 003's agent.max_orchestration_depth to
// delegation.max_depth; when both are set to different values it is an
// error that names the agentry key.
func (c *Config) applyCompat() error {
	d := c.Agent.MaxOrchestrationDepth
	if d == 0 {
		return nil
	}
	if c.Delegation.MaxDepth != permissions.DefaultMaxDepth && c.Delegation.MaxDepth != d {
		return fmt.Errorf("config: agent.max_orchestration_depth (%d) is delegation.max_depth (%d) under another name: keep delegation.max_depth", d, c.Delegation.MaxDepth)
	}
	if d < 1 {
		return fmt.Errorf("config: agent.max_orchestration_depth must be at least 1 (it is delegation.max_depth), got %d", d)
	}
	c.Delegation.MaxDepth = d
	return nil
}

// LimitsConfig is the limit hierarchy of orchestration (docs/orchestrator.md).
// A key left unset has its default for the kind of run: seed 001's figure
// in an orchestrator conversation (its root agent has subagents.dispatch or
// orchestrator: true), and for every other run round one's meaning (no
// per-turn caps, no orchestrator loop limit, no window; the tool timeout,
// the breakers and the dispatch defaults keep their figures). A key set in
// agentry.yaml or AGENTRY_LIMITS__* applies to every run; 0 turns a limit
// off. Unset is nil, which is why the fields are pointers.
type LimitsConfig struct {
	ToolTimeout       *Duration `yaml:"tool_timeout"`        // per tool call (shell.run keeps its own)
	DispatchToolCalls *int      `yaml:"dispatch_tool_calls"` // max_tool_calls of a dispatched agent
	DispatchTimeout   *Duration `yaml:"dispatch_timeout"`    // timeout of a dispatched agent
	TurnAgents        *int      `yaml:"turn_agents"`         // background agents of one model turn at once
	TurnToolCalls     *int      `yaml:"turn_tool_calls"`     // tool calls of one turn's dispatched agents
	OrchestratorTurns *int      `yaml:"orchestrator_turns"`  // model calls of an orchestrator invocation
	WindowCalls       *int      `yaml:"window_calls"`        // tool calls per conversation in any window
	Window            *Duration `yaml:"window"`
	BreakerFailures   *int      `yaml:"breaker_failures"` // consecutive failures that open a circuit
	BreakerCooldown   *Duration `yaml:"breaker_cooldown"` // until it half-opens
}

// check refuses a negative limit.
func (l LimitsConfig) check() error {
	for _, k := range l.keys() {
		if k.int != nil && *k.int < 0 || k.dur != nil && *k.dur < 0 {
			return fmt.Errorf("config: limits.%s must not be negative (0 turns it off)", k.name)
		}
	}
	return nil
}

// limitKey is one key of LimitsConfig and the orchestrator.Limits field it
// sets.
type limitKey struct {
	name   string
	int    *int
	dur    *Duration
	setInt func(*orchestrator.Limits, int)
	setDur func(*orchestrator.Limits, time.Duration)
}

func (l LimitsConfig) keys() []limitKey {
	return []limitKey{
		{name: "tool_timeout", dur: l.ToolTimeout, setDur: func(d *orchestrator.Limits, v time.Duration) { d.ToolTimeout = v }},
		{name: "dispatch_tool_calls", int: l.DispatchToolCalls, setInt: func(d *orchestrator.Limits, v int) { d.DispatchToolCalls = v }},
		{name: "dispatch_timeout", dur: l.DispatchTimeout, setDur: func(d *orchestrator.Limits, v time.Duration) { d.DispatchTimeout = v }},
		{name: "turn_agents", int: l.TurnAgents, setInt: func(d *orchestrator.Limits, v int) { d.TurnAgents = v }},
		{name: "turn_tool_calls", int: l.TurnToolCalls, setInt: func(d *orchestrator.Limits, v int) { d.TurnToolCalls = v }},
		{name: "orchestrator_turns", int: l.OrchestratorTurns, setInt: func(d *orchestrator.Limits, v int) { d.OrchestratorTurns = v }},
		{name: "window_calls", int: l.WindowCalls, setInt: func(d *orchestrator.Limits, v int) { d.WindowCalls = v }},
		{name: "window", dur: l.Window, setDur: func(d *orchestrator.Limits, v time.Duration) { d.Window = v }},
		{name: "breaker_failures", int: l.BreakerFailures, setInt: func(d *orchestrator.Limits, v int) { d.BreakerFailures = v }},
		{name: "breaker_cooldown", dur: l.BreakerCooldown, setDur: func(d *orchestrator.Limits, v time.Duration) { d.BreakerCooldown = v }},
	}
}

// over returns base with the keys that are set.
func (l LimitsConfig) over(base orchestrator.Limits) orchestrator.Limits {
	for _, k := range l.keys() {
		switch {
		case k.int != nil:
			k.setInt(&base, *k.int)
		case k.dur != nil:
			k.setDur(&base, k.dur.D())
		}
	}
	if l.WindowCalls != nil && base.Window == 0 { // window_calls set for every run: the window's length defaults too
		base.Window = orchestrator.DefaultLimits().Window
	}
	return base
}

// Runtime is the limits of every run that is not an orchestrator
// conversation, and those of orchestrator conversations.
func (l LimitsConfig) Runtime() (plain, orch orchestrator.Limits) {
	seed := orchestrator.DefaultLimits()
	return l.over(seed.Plain()), l.over(seed)
}
