package main

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/agentry/agentry/registry"
)

// Global tool patterns with an argument part must name the shell
// (registry.CommandPatternProblem): "*(git *)" or "web.fetch(x)" in
// permissions.tools would otherwise restrict nothing, silently.

// checkCommandPatterns reports the first such pattern in the config file
// doc, with its line.
func checkCommandPatterns(doc *yaml.Node, file string) error {
	tools := mapValue(mapValue(doc, "permissions"), "tools")
	for _, list := range []string{"allow", "deny", "ask"} {
		seq := mapValue(tools, list)
		if seq == nil || seq.Kind != yaml.SequenceNode {
			continue
		}
		for _, item := range seq.Content {
			if why := registry.CommandPatternProblem(item.Value); why != "" {
				return fmt.Errorf("config %s:%d: permissions.tools.%s: %s", file, item.Line, list, why)
			}
		}
	}
	return nil
}

// validateCommandPatterns checks the global patterns wherever they came
// from (the environment has no lines).
func (c Config) validateCommandPatterns() error {
	for list, patterns := range map[string][]string{"allow": c.Permissions.Tools.Allow, "deny": c.Permissions.Tools.Deny, "ask": c.Permissions.Tools.Ask} {
		for _, p := range patterns {
			if why := registry.CommandPatternProblem(p); why != "" {
				return fmt.Errorf("config: permissions.tools.%s: %s", list, why)
			}
		}
	}
	return nil
}

// mapValue is the value of key in the mapping n, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
