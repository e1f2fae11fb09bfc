package registry

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentry/agentry/registry/yamlstruct"
)

// Fields reads the frontmatter of a file that is not an agent (a
// skill's SKILL.md, a slash command) key by key with the agent decoder's
// readers: a value of the wrong type is a Problem at its file line, and
// reading goes on. registry/skills decodes those files with it, so their
// problems have the agent files' words and lines.
type Fields struct{ dc decoder }

// Fields starts reading d's frontmatter, with tool names mapped
// against BuiltinTools; its problems begin with a warning for each line
// read leniently (see repairYAML).
func (d *Document) Fields() *Fields {
	f := &Fields{dc: decoder{d: d, known: BuiltinTools}}
	f.dc.lenient()
	return f
}

// Pairs yields the top-level keys and values in file order.
func (f *Fields) Pairs() func(func(*yaml.Node, *yaml.Node) bool) {
	return yamlstruct.Pairs(f.dc.d.root)
}

// Line is the file line of a frontmatter node.
func (f *Fields) Line(n *yaml.Node) int { return f.dc.d.line(n) }

// BodyLine is the file line the body starts on.
func (f *Fields) BodyLine() int {
	d := f.dc.d
	return 1 + strings.Count(d.open+d.fm+d.close, "\n")
}

// Text reads a string value; anything else (a number, a list) is an error
// at its line.
func (f *Fields) Text(v *yaml.Node, field string) (string, bool) { return f.dc.str(v, field) }

// Bool reads true or false; anything else is an error at its line.
func (f *Fields) Bool(v *yaml.Node, field string) (bool, bool) {
	var b bool
	if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || v.Decode(&b) != nil {
		f.dc.errorf(v, field, "%s must be true or false, got %s", field, yamlstruct.Describe(v))
		return false, false
	}
	return b, true
}

// Add records a problem at a file line.
func (f *Fields) Add(sev string, line int, field, msg string) { f.dc.add(sev, line, field, msg) }

// Errorf records an error at a node's line.
func (f *Fields) Errorf(n *yaml.Node, field, format string, args ...any) {
	f.dc.errorf(n, field, format, args...)
}

// Warnf records a warning at a node's line.
func (f *Fields) Warnf(n *yaml.Node, field, format string, args ...any) {
	f.dc.warnf(n, field, format, args...)
}

// Problems returns the problems recorded so far, by line.
func (f *Fields) Problems() []Problem {
	probs := slices.Clone(f.dc.probs)
	SortProblems(probs)
	return probs
}

// AllowedTools reads an allowed-tools value (a skill's, a command's): the
// Agent Skills spec's space-separated string (Bash(git:*) Read), Claude
// Code's comma string or a YAML list, each name mapped to agentry's tools
// as agent files' tools are. A name agentry has nothing for is a warning:
// fewer tools are allowed, never more. Task and Agent grant delegation
// where delegation is meaningful (a command's run), else they are warned
// about too. The tools are never nil.
func (f *Fields) AllowedTools(v *yaml.Node, delegation bool) (tools []string, delegates bool) {
	const field = "allowed-tools"
	tools = []string{}
	add := func(name string, n *yaml.Node) {
		t := f.dc.mapTool(name)
		switch {
		case t.Delegate && delegation:
			delegates = true
			return
		case t.Delegate:
			f.dc.warnf(n, field, "not available in a skill: %s (delegation is decided by the agent's subagents)", name)
			return
		case t.Unavailable || t.Narrowed:
			f.dc.warnf(n, field, "not available in agentry: %s (%s)", name, t.Reason)
			return
		}
		for _, tool := range t.Tools {
			if why := CommandPatternProblem(tool); why != "" {
				f.dc.warnf(n, field, "%s", why)
				continue
			}
			if !slices.Contains(tools, tool) {
				tools = append(tools, tool)
			}
		}
	}
	switch v.Kind {
	case yaml.ScalarNode:
		for _, name := range SplitOutsideParentheses(v.Value, " \t\n,") {
			add(name, v)
		}
	case yaml.SequenceNode:
		for _, item := range v.Content {
			if item.Kind != yaml.ScalarNode {
				f.dc.warnf(item, field, "allowed-tools entries must be tool names, got %s", yamlstruct.Describe(item))
				continue
			}
			add(strings.TrimSpace(item.Value), item)
		}
	default:
		f.dc.warnf(v, field, "allowed-tools must be a space-separated string or a list of tool names, got %s", yamlstruct.Describe(v))
	}
	return tools, delegates
}
