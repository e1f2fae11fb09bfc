package registry

import (
	"go.yaml.in/yaml/v3"

	"github.com/agentry/agentry/registry/yamlstruct"
)

// Node helpers of the skill and command decoders, which walk SKILL.md's
// and a command's frontmatter key by key (the agent decoder decodes into
// agentKeys instead).

// pairs yields the key and value nodes of a mapping (nothing for nil).
func pairs(m *yaml.Node) func(func(*yaml.Node, *yaml.Node) bool) {
	return func(yield func(*yaml.Node, *yaml.Node) bool) {
		if m == nil || m.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			if !yield(m.Content[i], m.Content[i+1]) {
				return
			}
		}
	}
}

// describe names a node's value for a type error: `string "three"`, `a list`.
var describe = yamlstruct.Describe

func (dc *decoder) boolean(v *yaml.Node, field string) (bool, bool) {
	var b bool
	if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || v.Decode(&b) != nil {
		dc.errorf(v, field, "%s must be true or false, got %s", field, describe(v))
		return false, false
	}
	return b, true
}
