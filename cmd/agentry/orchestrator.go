package main

import (
	"fmt"
	"time"

	"github.com/agentry/agentry/delegation"
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
	l := c.Limits
	for k, v := range map[string]int64{"tool_timeout": int64(l.ToolTimeout), "dispatch_tool_calls": int64(l.DispatchToolCalls),
		"turn_agents": int64(l.TurnAgents), "turn_tool_calls": int64(l.TurnToolCalls), "window_calls": int64(l.WindowCalls),
		"window": int64(l.Window), "breaker_failures": int64(l.BreakerFailures), "breaker_cooldown": int64(l.BreakerCooldown)} {
		if v < 0 {
			return fmt.Errorf("config: limits.%s must not be negative (0 turns it off)", k)
		}
	}
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

// LimitsConfig is the limit hierarchy of orchestration (docs/orchestrator.md):
// seed 001's figures by default; 0 turns a limit off.
type LimitsConfig struct {
	ToolTimeout       time.Duration `yaml:"tool_timeout"`        // per tool call (shell.run keeps its own)
	DispatchToolCalls int           `yaml:"dispatch_tool_calls"` // max_tool_calls of a dispatched agent
	TurnAgents        int           `yaml:"turn_agents"`         // background agents per invocation
	TurnToolCalls     int           `yaml:"turn_tool_calls"`     // their tool calls together
	WindowCalls       int           `yaml:"window_calls"`        // tool calls per conversation in any window
	Window            time.Duration `yaml:"window"`
	BreakerFailures   int           `yaml:"breaker_failures"` // consecutive failures that open a circuit
	BreakerCooldown   time.Duration `yaml:"breaker_cooldown"` // until it half-opens
}

func defaultLimits() LimitsConfig {
	l := delegation.DefaultLimits()
	return LimitsConfig{ToolTimeout: l.ToolTimeout, DispatchToolCalls: l.DispatchToolCalls, TurnAgents: l.TurnAgents,
		TurnToolCalls: l.TurnToolCalls, WindowCalls: l.WindowCalls, Window: l.Window,
		BreakerFailures: l.BreakerFailures, BreakerCooldown: l.BreakerCooldown}
}

func (l LimitsConfig) runtime() delegation.Limits {
	return delegation.Limits{ToolTimeout: l.ToolTimeout, DispatchToolCalls: l.DispatchToolCalls, TurnAgents: l.TurnAgents,
		TurnToolCalls: l.TurnToolCalls, WindowCalls: l.WindowCalls, Window: l.Window,
		BreakerFailures: l.BreakerFailures, BreakerCooldown: l.BreakerCooldown}
}
