package config

import (
	"sort"
	"time"

	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/delegation/tool/mcp"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
)

// What the runtime takes, from the configuration's sections.

// GlobalTools is the global level's tool rules.
func (c Config) GlobalTools() permissions.Rules {
	return permissions.Rules{Allow: c.Permissions.Tools.Allow, Deny: c.Permissions.Tools.Deny, Ask: c.Permissions.Tools.Ask}
}

// DelegationPolicy is the run-wide part of delegation decisions.
func (c Config) DelegationPolicy() permissions.Delegation {
	return permissions.Delegation{MaxDepth: c.Delegation.MaxDepth, Disabled: c.Permissions.DisabledAgents, Ask: c.Permissions.Subagents.Ask}
}

// ApprovalWait is how long an asked call waits: approval_timeout, or its default.
func (c Config) ApprovalWait() time.Duration {
	if c.ApprovalTimeout > 0 {
		return c.ApprovalTimeout.D()
	}
	return control.DefaultApprovalTimeout
}

// Budget is the per-run budget as the runtime counts it.
func (b BudgetConfig) Budget() registry.Budget {
	return registry.Budget{Tokens: b.Tokens, USD: b.USD, WallClock: b.WallClock.D()}
}

// TemporalEngine is where engine: temporal submits runs.
func (c Config) TemporalEngine() temporal.Config {
	return temporal.Config{Address: c.Temporal.Address, Namespace: c.Temporal.Namespace, TaskQueue: c.Temporal.TaskQueue}
}

// MCPServers are the configured MCP servers, sorted by name.
func (c Config) MCPServers() []mcp.Server {
	names := make([]string, 0, len(c.MCP.Servers))
	for name := range c.MCP.Servers {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]mcp.Server, 0, len(names))
	for _, name := range names {
		sc := c.MCP.Servers[name]
		out = append(out, mcp.Server{Name: name, Command: sc.Command, Args: sc.Args, Env: sc.Env})
	}
	return out
}
