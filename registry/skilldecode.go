package registry

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// skillKeys are the SKILL.md keys agentry reads: the Agent Skills spec's
// and Claude Code's disable-model-invocation.
var skillKeys = []string{"name", "description", "license", "compatibility", "metadata", "allowed-tools", "disable-model-invocation"}

// skillForeignKeys are keys other tools write into SKILL.md (Claude Code's
// skill extensions); they are kept and never taken for typos.
var skillForeignKeys = map[string]bool{
	"user-invocable": true, "context": true, "agent": true, "paths": true, "hooks": true,
	"arguments": true, "argument-hint": true, "model": true, "version": true, "when_to_use": true,
}

// skillDecoder reads a SKILL.md's frontmatter into a Skill; it borrows the
// agent decoder's typed readers and problem reporting.
type skillDecoder struct {
	decoder
	s *Skill
}

func (dc *skillDecoder) decode() {
	nameLine, descLine, compatLine := 1, 1, 1
	hasDesc := false
	seen := map[string]int{}
	dc.lenient()
	for k, v := range pairs(dc.d.root) {
		if first, dup := seen[k.Value]; dup {
			dc.errorf(k, k.Value, "key %q is set twice (first on line %d)", k.Value, first)
			continue
		}
		seen[k.Value] = dc.d.line(k)
		if isNull(v) {
			continue
		}
		switch k.Value {
		case "name":
			if s, ok := dc.str(v, "name"); ok {
				dc.s.Name, nameLine = strings.TrimSpace(s), dc.d.line(v)
			}
		case "description":
			hasDesc, descLine = true, dc.d.line(v)
			dc.s.Description, _ = dc.str(v, "description")
			dc.s.Description = strings.TrimSpace(dc.s.Description)
		case "license":
			dc.s.License, _ = dc.str(v, "license")
		case "compatibility":
			compatLine = dc.d.line(v)
			dc.s.Compatibility, _ = dc.str(v, "compatibility")
		case "metadata":
			dc.metadata(v)
		case "allowed-tools":
			dc.s.AllowedTools, _ = dc.allowedTools(v, false)
		case "disable-model-invocation":
			if b, ok := dc.boolean(v, k.Value); ok {
				dc.s.ModelInvocable = !b
			}
		default:
			dc.unknownSkillKey(k)
		}
	}
	dc.identity(nameLine)
	if !hasDesc || dc.s.Description == "" {
		dc.add(SeverityError, descLine, "description", "description is missing: it is what an agent reads to decide when to load the skill")
	}
	dc.checkLengths(descLine, compatLine)
}

// metadata reads the spec's string map; other values are kept in the file
// and reported.
func (dc *skillDecoder) metadata(v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		dc.warnf(v, "metadata", "metadata must be a mapping of keys to strings, got %s", describe(v))
		return
	}
	dc.s.Metadata = map[string]string{}
	for k, val := range pairs(v) {
		if val.Kind != yaml.ScalarNode {
			dc.warnf(val, "metadata", "metadata.%s must be a string, got %s", k.Value, describe(val))
			continue
		}
		dc.s.Metadata[k.Value] = val.Value
	}
}

// allowedTools reads an allowed-tools value (a skill's, a command's): the
// Agent Skills spec's space-separated string (Bash(git:*) Read), Claude
// Code's comma string or a YAML list, each name mapped to agentry's tools
// as agent files' tools are. A name agentry has nothing for is a warning:
// fewer tools are allowed, never more. Task and Agent grant delegation
// where delegation is meaningful (a command's run), else they are warned
// about too. The tools are never nil.
func (dc *decoder) allowedTools(v *yaml.Node, delegation bool) (tools []string, delegates bool) {
	const field = "allowed-tools"
	tools = []string{}
	add := func(name string, n *yaml.Node) {
		t := MapTool(name, dc.known)
		switch {
		case t.Delegate && delegation:
			delegates = true
			return
		case t.Delegate:
			dc.warnf(n, field, "not available in a skill: %s (delegation is decided by the agent's subagents)", name)
			return
		case t.Unavailable || t.Narrowed:
			dc.warnf(n, field, "not available in agentry: %s (%s)", name, t.Reason)
			return
		}
		for _, tool := range t.Tools {
			if why := CommandPatternProblem(tool); why != "" {
				dc.warnf(n, field, "%s", why)
				continue
			}
			if !slices.Contains(tools, tool) {
				tools = append(tools, tool)
			}
		}
	}
	switch v.Kind {
	case yaml.ScalarNode:
		for _, name := range splitNamesOutside(v.Value, " \t\n,") {
			add(name, v)
		}
	case yaml.SequenceNode:
		for _, item := range v.Content {
			if item.Kind != yaml.ScalarNode {
				dc.warnf(item, field, "allowed-tools entries must be tool names, got %s", describe(item))
				continue
			}
			add(strings.TrimSpace(item.Value), item)
		}
	default:
		dc.warnf(v, field, "allowed-tools must be a space-separated string or a list of tool names, got %s", describe(v))
	}
	return tools, delegates
}

// unknownSkillKey reports a near miss of a key agentry reads. A near miss
// of allowed-tools is an error, as for agents' tools: ignoring it would
// leave the agent tools the skill means to take away. Other near misses
// are warnings; any other key is kept silently.
func (dc *skillDecoder) unknownSkillKey(k *yaml.Node) {
	if skillForeignKeys[k.Value] {
		return
	}
	norm := normKey(k.Value)
	if norm == "tools" || editDistance(norm, "allowedtools") <= 2 {
		dc.errorf(k, k.Value, "unknown key %q: did you mean \"allowed-tools\"? (as written it is ignored, which would leave the agent tools the skill means to take away)", k.Value)
		return
	}
	for _, want := range skillKeys {
		limit := 1
		if len(want) > 5 {
			limit = 2
		}
		if editDistance(norm, normKey(want)) <= limit {
			dc.warnf(k, k.Value, "unknown key %q: did you mean %q? (it is ignored as written)", k.Value, want)
			return
		}
	}
}
