package config

import "fmt"

// ExposeConfig is the `expose:` section: which agents and workflows outside
// tools (an MCP client, an A2A agent, a program calling the API) may run,
// and the permission level their runs take below the global one. Nothing
// is exposed until it names something (docs/mcp-server.md).
type ExposeConfig struct {
	Agents    []string `yaml:"agents"`    // name patterns: "research-*", "*"
	Workflows []string `yaml:"workflows"` // name patterns
	// Permissions is one more level of every permission chain of an
	// exposed run; absent, the global level alone applies.
	Permissions struct {
		Tools RulesConfig `yaml:"tools"`
	} `yaml:"permissions"`
}

// validateExpose refuses patterns that could match nothing.
func (c Config) validateExpose() error {
	for key, list := range map[string][]string{"expose.agents": c.Expose.Agents, "expose.workflows": c.Expose.Workflows} {
		for _, p := range list {
			if p == "" {
				return fmt.Errorf("config: %s has an empty pattern; name an agent, a glob such as research-*, or *", key)
			}
		}
	}
	return nil
}
