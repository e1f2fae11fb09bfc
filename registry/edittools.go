package registry

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// setTools writes tools.allow or tools.deny in the dialect of the file (see
// respell). It reports false when the generic path applies: an agentry
// file gaining the field, or a value that is no list of names.
func (d *Document) setTools(key string, value any) (bool, error) {
	want, err := stringsOf(value)
	if err != nil {
		return true, fmt.Errorf("set %s: %w", key, err)
	}
	deny := key == "tools.deny"
	path, node := d.toolField(key)
	if node == nil {
		return d.addToolField(deny, want)
	}
	old, ok := toolEntries(node)
	if !ok {
		return false, nil
	}
	sp := detectSpelling(d.file, old, node.Kind == yaml.ScalarNode || path[0] == "disallowedTools")
	entries := respell(old, want, d.knownTools(), deny, sp)
	if slices.Equal(entries, old) {
		return true, nil
	}
	if deny && len(entries) == 0 {
		return true, d.setPath(path, nil) // an empty deny list equals an absent one
	}
	return true, d.setPath(path, toolListNode(node, entries))
}

// addToolField writes a tool field the file does not have yet. A Claude
// Code or VS Code file gets its own form (tools: Read, Grep; a list; deny
// as disallowedTools, so a plain tools list is never turned into a
// mapping those tools cannot read); an agentry file takes the generic path.
func (d *Document) addToolField(deny bool, want []string) (bool, error) {
	t := nonNullNode(d.top("tools"))
	if t != nil && t.Kind == yaml.MappingNode {
		return false, nil
	}
	var entries []string
	var claudeForm bool
	if t != nil {
		entries, _ = toolEntries(t)
		claudeForm = t.Kind == yaml.ScalarNode
	}
	sp := detectSpelling(d.file, entries, claudeForm)
	if sp.dialect == dialectAgentry {
		return false, nil
	}
	names := respell(nil, want, d.knownTools(), deny, sp)
	if deny && len(names) == 0 {
		return true, nil
	}
	var n *yaml.Node
	switch {
	case t != nil:
		n = toolListNode(t, names)
		n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	case sp.dialect == dialectClaude && len(names) > 0:
		n = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: strings.Join(names, ", ")}
	default:
		n = toolListNode(&yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}, names)
	}
	if deny {
		return true, d.setPath([]string{"disallowedTools"}, n)
	}
	return true, d.setPath([]string{"tools"}, n)
}

// toolField finds where key lives in this file: a plain tools list or comma
// string, disallowedTools, or tools.allow / tools.deny in the mapping form.
func (d *Document) toolField(key string) ([]string, *yaml.Node) {
	if key == "tools.deny" {
		if n := nonNullNode(d.top("disallowedTools")); n != nil {
			return []string{"disallowedTools"}, n
		}
	} else if t := nonNullNode(d.top("tools")); t != nil && t.Kind != yaml.MappingNode {
		return []string{"tools"}, t
	}
	segs := strings.Split(key, ".")
	return segs, nonNullNode(find(d.root, segs))
}

func (d *Document) knownTools() []string {
	if d.known == nil {
		return BuiltinTools
	}
	return d.known
}

// toolEntries reads the names of a comma string or a list of strings.
func toolEntries(n *yaml.Node) ([]string, bool) {
	switch n.Kind {
	case yaml.ScalarNode:
		return splitToolNames(n.Value), n.Tag == "!!str"
	case yaml.SequenceNode:
		out := make([]string, 0, len(n.Content))
		for _, item := range n.Content {
			if item.Kind != yaml.ScalarNode || item.Tag != "!!str" {
				return nil, false
			}
			out = append(out, strings.TrimSpace(item.Value))
		}
		return out, true
	}
	return nil, false
}

// toolListNode encodes entries in the form of old: a comma string stays a
// comma string with its separator, a list keeps its style, and every item
// that was there keeps its node (quotes, comments); new items take the
// quoting of the first old item.
func toolListNode(old *yaml.Node, entries []string) *yaml.Node {
	if old.Kind == yaml.ScalarNode && len(entries) > 0 {
		sep := ", "
		if strings.Contains(old.Value, ",") && !strings.Contains(old.Value, ", ") {
			sep = ","
		}
		n := *old
		n.Value = strings.Join(entries, sep)
		if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			n.Style = 0
		}
		return &n
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
	var style yaml.Style
	if old.Kind == yaml.SequenceNode {
		seq.Style = old.Style
		seq.HeadComment, seq.LineComment, seq.FootComment = old.HeadComment, old.LineComment, old.FootComment
		if len(old.Content) > 0 {
			style = old.Content[0].Style
		}
	} else {
		seq.LineComment = old.LineComment
	}
	used := make([]bool, len(old.Content))
	for _, e := range entries {
		i := slices.IndexFunc(old.Content, func(c *yaml.Node) bool { return c.Kind == yaml.ScalarNode && strings.TrimSpace(c.Value) == e })
		for i >= 0 && used[i] {
			j := slices.IndexFunc(old.Content[i+1:], func(c *yaml.Node) bool { return strings.TrimSpace(c.Value) == e })
			if j < 0 {
				i = -1
				break
			}
			i += 1 + j
		}
		if i >= 0 {
			used[i] = true
			seq.Content = append(seq.Content, old.Content[i])
			continue
		}
		seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: e, Style: style})
	}
	keepHeadComments(old, seq, used)
	return seq
}

// keepHeadComments moves the comment above a removed item ("# Standard
// tools" over the first entry) to the next item that stays, so removing a
// tool does not remove the comment that introduces the list.
func keepHeadComments(old, seq *yaml.Node, used []bool) {
	pending := ""
	for i, item := range old.Content {
		if !used[i] {
			pending = joinComments(pending, item.HeadComment)
			continue
		}
		if pending == "" {
			continue
		}
		if k := slices.Index(seq.Content, item); k >= 0 {
			c := *item
			c.HeadComment = joinComments(pending, item.HeadComment)
			seq.Content[k] = &c
		}
		pending = ""
	}
}

func joinComments(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "\n" + b
}
