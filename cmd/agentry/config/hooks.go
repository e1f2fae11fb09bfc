package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentry/agentry/delegation/cost"
	"github.com/agentry/agentry/delegation/hooks"
)

// HooksConfig is the `hooks:` key (docs/hooks.md): agentry's points
// (pre_tool, post_tool, subagent_start, subagent_stop, run_start, run_end),
// each a list of {match, if, command, timeout, on_error}; Claude Code's events
// (PreToolUse, PostToolUse, SubagentStart, SubagentStop, Stop) in their
// settings.json shape, pasted as they are; and claude_settings, Claude Code
// settings files whose hooks load too.
type HooksConfig struct {
	Points         hooks.Set `yaml:"-"`
	Claude         []byte    `yaml:"-"` // Claude Code events written inline, as settings.json JSON
	ClaudeSettings []string  `yaml:"claude_settings"`
	// Plugins are the hooks.json of installed plugins whose hooks a person
	// enabled (cmd/agentry's applyPlugins), in Claude Code's shape.
	Plugins [][]byte `yaml:"-"`
}

// PricesConfig is the `prices:` key: model (a spec or a bare model id) →
// USD per million tokens, laid over the shipped table (docs/cost.md).
type PricesConfig map[string]cost.Price

// hookKeys are the fields a hook may have; anything else is a typo to report.
var hookKeys = []string{"match", "if", "command", "timeout", "on_error"}

// UnmarshalYAML reads the three forms of the hooks key, reporting an
// unknown key with its line.
func (h *HooksConfig) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: hooks must be a mapping of hook points", n.Line)
	}
	claude := map[string]any{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch p := hooks.Point(k.Value); {
		case k.Value == "claude_settings":
			if err := v.Decode(&h.ClaudeSettings); err != nil {
				return err
			}
		case p.Valid():
			list, err := decodeHooks(p, v)
			if err != nil {
				return err
			}
			if h.Points == nil {
				h.Points = hooks.Set{}
			}
			h.Points[p] = append(h.Points[p], list...)
		case hooks.IsClaudeEvent(k.Value):
			var val any
			if err := v.Decode(&val); err != nil {
				return err
			}
			claude[k.Value] = val
		default:
			return fmt.Errorf("line %d: hooks: unknown hook point %q (agentry's: pre_tool, post_tool, subagent_start, subagent_stop, run_start, run_end; Claude Code's: PreToolUse, PostToolUse, SubagentStart, SubagentStop, Stop; or claude_settings)", k.Line, k.Value)
		}
	}
	if len(claude) > 0 {
		data, err := json.Marshal(map[string]any{"hooks": claude})
		if err != nil {
			return fmt.Errorf("line %d: hooks: %w", n.Line, err)
		}
		h.Claude = data
	}
	return nil
}

func decodeHooks(p hooks.Point, v *yaml.Node) ([]hooks.Hook, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("line %d: hooks.%s must be a list of {match, if, command, timeout, on_error}", v.Line, p)
	}
	for _, item := range v.Content {
		if item.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("line %d: hooks.%s: each hook is a mapping with a command", item.Line, p)
		}
		for j := 0; j < len(item.Content); j += 2 {
			if key := item.Content[j]; !slices.Contains(hookKeys, key.Value) {
				return nil, fmt.Errorf("line %d: hooks.%s: unknown key %q (known: %s)", key.Line, p, key.Value, strings.Join(hookKeys, ", "))
			}
		}
	}
	var list []hooks.Hook
	if err := v.Decode(&list); err != nil {
		return nil, fmt.Errorf("hooks.%s: %w", p, err)
	}
	return list, nil
}
