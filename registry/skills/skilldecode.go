package skills

import (
	"strings"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/internal/typo"
	"github.com/agentry/agentry/registry/yamlstruct"
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

// skillIgnoredKeys are Claude Code's skill keys that change what loading
// the skill does there and that agentry cannot honour, with why: each is
// kept and warned about, so nobody takes it for honoured.
var skillIgnoredKeys = map[string]string{
	"context": "agentry loads a skill's instructions into the agent that loads it; it runs no skill in a forked sub-agent",
	"agent":   "agentry runs no skill in a sub-agent of its own, so there is no agent type to choose",
	"hooks":   "agentry runs no hooks from a skill; set them in agentry.yaml's hooks: (docs/hooks.md)",
	"model":   "a skill does not change the model of the agent that loads it",
}

// skillDecoder reads a SKILL.md's frontmatter into a Skill; it borrows the
// agent decoder's typed readers and problem reporting (registry.Fields).
type skillDecoder struct {
	*registry.Fields
	s *Skill
}

func (dc *skillDecoder) decode() {
	nameLine, descLine, compatLine := 1, 1, 1
	hasDesc := false
	seen := map[string]int{}
	for k, v := range dc.Pairs() {
		if first, dup := seen[k.Value]; dup {
			dc.Errorf(k, k.Value, "key %q is set twice (first on line %d)", k.Value, first)
			continue
		}
		seen[k.Value] = dc.Line(k)
		if yamlstruct.IsNull(v) {
			continue
		}
		switch k.Value {
		case "name":
			if s, ok := dc.Text(v, "name"); ok {
				dc.s.Name, nameLine = strings.TrimSpace(s), dc.Line(v)
			}
		case "description":
			hasDesc, descLine = true, dc.Line(v)
			dc.s.Description, _ = dc.Text(v, "description")
			dc.s.Description = strings.TrimSpace(dc.s.Description)
		case "license":
			dc.s.License, _ = dc.Text(v, "license")
		case "compatibility":
			compatLine = dc.Line(v)
			dc.s.Compatibility, _ = dc.Text(v, "compatibility")
		case "metadata":
			dc.metadata(v)
		case "allowed-tools":
			dc.s.AllowedTools, _ = dc.AllowedTools(v, false)
		case "disable-model-invocation":
			if b, ok := dc.Bool(v, k.Value); ok {
				dc.s.ModelInvocable = !b
			}
		default:
			dc.unknownSkillKey(k, v)
		}
	}
	dc.identity(nameLine)
	if !hasDesc || dc.s.Description == "" {
		dc.Add(registry.SeverityError, descLine, "description", "description is missing: it is what an agent reads to decide when to load the skill")
	}
	dc.checkLengths(descLine, compatLine)
}

// metadata reads the spec's string map; other values are kept in the file
// and reported.
func (dc *skillDecoder) metadata(v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		dc.Warnf(v, "metadata", "metadata must be a mapping of keys to strings, got %s", yamlstruct.Describe(v))
		return
	}
	dc.s.Metadata = map[string]string{}
	for k, val := range yamlstruct.Pairs(v) {
		if val.Kind != yaml.ScalarNode {
			dc.Warnf(val, "metadata", "metadata.%s must be a string, got %s", k.Value, yamlstruct.Describe(val))
			continue
		}
		dc.s.Metadata[k.Value] = val.Value
	}
}

// unknownSkillKey reports a near miss of a key agentry reads. A near miss
// of allowed-tools is an error, as for agents' tools: ignoring it would
// leave the agent tools the skill means to take away. Other near misses
// are warnings; any other key is kept silently.
func (dc *skillDecoder) unknownSkillKey(k, v *yaml.Node) {
	if why, ok := skillIgnoredKeys[k.Value]; ok && (v.Kind == yaml.ScalarNode || len(v.Content) > 0) {
		dc.Warnf(k, k.Value, "%s is ignored: %s", k.Value, why)
		return
	}
	if skillForeignKeys[k.Value] {
		return
	}
	norm := typo.Norm(k.Value)
	if norm == "tools" || typo.Distance(norm, "allowedtools") <= 2 {
		dc.Errorf(k, k.Value, "unknown key %q: did you mean \"allowed-tools\"? (as written it is ignored, which would leave the agent tools the skill means to take away)", k.Value)
		return
	}
	if want := typo.Nearest(norm, skillKeys); want != "" {
		dc.Warnf(k, k.Value, "unknown key %q: did you mean %q? (it is ignored as written)", k.Value, want)
	}
}
