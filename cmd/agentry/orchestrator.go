package main

import (
	"fmt"

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
