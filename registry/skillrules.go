package registry

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/agentry/agentry/registry/yamlstruct"
)

// skills reads an agent's skills: Claude Code's list (or comma string) of
// skills, which allows exactly those and preloads them, or agentry's
// {allow, deny}. Claude Code's "plugin:name" is read as "plugin.name".
func (dc *decoder) skills(v *yaml.Node) {
	names := func(v *yaml.Node, field string, remember bool) []string {
		out := []string{}
		for name, n := range dc.stringItems(v, field) {
			id := NormalizeItemID(name)
			if remember && !isPattern(id) {
				dc.facts.skills = append(dc.facts.skills, ref{id, dc.d.line(n)})
			}
			out = append(out, id)
		}
		return out
	}
	switch v.Kind {
	case yaml.SequenceNode, yaml.ScalarNode:
		dc.a.Skills.Allow = names(v, "skills", true)
		for _, id := range dc.a.Skills.Allow {
			if !isPattern(id) {
				dc.a.Preload = append(dc.a.Preload, id)
			}
		}
	case yaml.MappingNode:
		for k, val := range yamlstruct.Pairs(v) {
			switch k.Value {
			case "allow":
				if !yamlstruct.IsNull(val) {
					dc.a.Skills.Allow = names(val, "skills.allow", true)
				}
			case "deny":
				dc.a.Skills.Deny = append(dc.a.Skills.Deny, names(val, "skills.deny", false)...)
			default:
				dc.warnf(k, "skills", "unknown key skills.%s (expected allow or deny)", k.Value)
			}
		}
	default:
		dc.errorf(v, "skills", "skills must be a list of skill names, a comma-separated string or {allow, deny}")
	}
}

// CheckSkills returns warnings for the skills agents name that served (a
// skill library's lookup) does not find: a skills: entry that is no
// skill's id is most likely a typo or a plugin that is not installed.
// Patterns are not checked.
func (s *Snapshot) CheckSkills(served func(id string) bool) []Problem {
	var out []Problem
	for _, f := range s.files {
		e := s.entries[f.Path]
		if e.served == nil {
			continue
		}
		for _, r := range e.served.facts.skills {
			if !served(r.name) {
				out = append(out, Problem{File: f.Path, Agent: f.Agent, Severity: SeverityWarning, Line: r.line, Field: "skills",
					Message: fmt.Sprintf("skills names %q, but no skill has that id", r.name)})
			}
		}
	}
	return out
}
