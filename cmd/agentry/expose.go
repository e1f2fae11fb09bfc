package main

import (
	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/web/core"
)

// exposure is the expose: section as the web server and `agentry mcp`
// take it. expose.permissions.tools adds a level only when it names
// something: config.Set's round trip through YAML (a flag, a variable)
// cannot tell an absent list from an empty one (deny: ["*"] denies all).
func exposure(c config.Config) core.Exposure {
	x := core.Exposure{Agents: c.Expose.Agents, Workflows: c.Expose.Workflows, Policy: c.DelegationPolicy()}
	if t := c.Expose.Permissions.Tools; len(t.Allow)+len(t.Deny)+len(t.Ask) > 0 {
		x.Tools = &permissions.Rules{Allow: t.Allow, Deny: t.Deny, Ask: t.Ask}
	}
	return x
}
