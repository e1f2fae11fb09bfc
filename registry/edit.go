package registry

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/agentry/agentry/registry/yamlstruct"
)

// canonicalOrder is where new top-level keys go: after the nearest key that
// precedes them here, so a file gains keys in the order people write them.
var canonicalOrder = []string{
	"name", "description", "model", "tools", "disallowedTools", "agents",
	"subagents", "max_turns", "timeout", "retry", "enabled",
}

// Get returns the value at a dotted key ("name", "tools.allow",
// "subagents.max_concurrent") as plain Go values (string, int, bool,
// []any, map[string]any). For the form fields "tools.allow", "tools.deny"
// and "subagents.allow" it also reads the Claude Code and VS Code spellings
// (a plain tools list, a "Read, Grep" string, disallowedTools, agents), so
// an editor shows what the file means whatever its form.
func (d *Document) Get(key string) (any, bool) {
	n := d.lookup(key)
	if n == nil {
		return nil, false
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && isListKey(key) {
		return splitNames(n.Value), true
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// Set changes the value at a dotted key; nil or "" deletes the key. Setting
// a value equal to the current one changes nothing, so re-submitting an
// unchanged form keeps the file byte-identical. Only the top-level entry
// that holds the key is rewritten; comments, unknown keys and the order of
// the other entries stay as they are. New top-level keys are inserted after
// the nearest key that usually precedes them (name, description, model,
// tools, ..., enabled); unknown new keys go last. A time.Duration is written
// in Go form ("2m0s"). The tool lists (tools.allow, tools.deny) take agentry
// names and are written back in the file's dialect: Claude Code names in a
// Claude Code comma string, VS Code names in a VS Code list, the spelling
// an entry already has kept, and entries the form cannot show (Task,
// search/codebase) left in place.
func (d *Document) Set(key string, value any) error {
	segs := strings.Split(key, ".")
	if slices.Contains(segs, "") {
		return fmt.Errorf("set %q: empty key segment", key)
	}
	value = plain(value)
	want, err := normalize(value)
	if err != nil {
		return fmt.Errorf("set %s: %w", key, err)
	}
	if (key == "tools.allow" || key == "tools.deny") && value != nil {
		if handled, err := d.setTools(key, value); handled {
			return err
		}
	}
	cur, ok := d.Get(key)
	if sameValue(key, cur, ok, want) {
		return nil
	}
	if handled, err := d.setAlias(key, value); handled {
		return err
	}
	return d.setPath(segs, value)
}

// lookup finds the node for key, following the compatible spellings of the
// form's list fields.
func (d *Document) lookup(key string) *yaml.Node {
	switch key {
	case "max_turns":
		if d.top("max_turns") == nil && d.top("maxTurns") != nil {
			return nonNullNode(d.top("maxTurns"))
		}
	case "tools.allow":
		if t := d.top("tools"); t != nil && t.Kind != yaml.MappingNode {
			return nonNullNode(t)
		}
	case "tools.deny":
		if t := d.top("disallowedTools"); t != nil {
			return nonNullNode(t)
		}
	case "subagents.allow":
		if n := find(d.root, strings.Split(key, ".")); n == nil {
			if a := d.top("agents"); a != nil {
				return nonNullNode(a)
			}
		}
	}
	return nonNullNode(find(d.root, strings.Split(key, ".")))
}

// setAlias writes the form's list fields in the spelling the file already
// uses. It reports false when the generic path applies.
func (d *Document) setAlias(key string, value any) (bool, error) {
	switch key {
	case "max_turns":
		if d.top("max_turns") == nil && d.top("maxTurns") != nil {
			return true, d.setPath([]string{"maxTurns"}, value)
		}
	case "tools.allow":
		if t := d.top("tools"); t != nil && t.Kind != yaml.MappingNode && !yamlstruct.IsNull(t) {
			if value == nil {
				return true, d.setPath([]string{"tools"}, nil)
			}
			n, err := listLike(t, value)
			if err != nil {
				return true, fmt.Errorf("set %s: %w", key, err)
			}
			return true, d.setPath([]string{"tools"}, n)
		}
	case "tools.deny":
		if t := d.top("disallowedTools"); t != nil {
			if isEmptyList(value) {
				return true, d.setPath([]string{"disallowedTools"}, nil)
			}
			n, err := listLike(t, value)
			if err != nil {
				return true, fmt.Errorf("set %s: %w", key, err)
			}
			return true, d.setPath([]string{"disallowedTools"}, n)
		}
		if t := d.top("tools"); t != nil && t.Kind != yaml.MappingNode && !yamlstruct.IsNull(t) && !isEmptyList(value) {
			allow, _ := d.Get("tools.allow")
			return true, d.setPath([]string{"tools"}, map[string]any{"allow": allow, "deny": value})
		}
	case "subagents.allow":
		if find(d.root, []string{"subagents", "allow"}) == nil && d.top("agents") != nil {
			if value == nil {
				return true, d.setPath([]string{"agents"}, nil)
			}
			n, err := listLike(d.top("agents"), value)
			if err != nil {
				return true, fmt.Errorf("set %s: %w", key, err)
			}
			return true, d.setPath([]string{"agents"}, n)
		}
	}
	return false, nil
}

// setPath sets or deletes (value nil) the key at segs by rewriting the one
// top-level entry it lives in.
func (d *Document) setPath(segs []string, value any) error {
	idx := d.topIndex(segs[0])
	if idx < 0 {
		if value == nil {
			return nil
		}
		v, err := valueNode(value, nil)
		if err != nil {
			return fmt.Errorf("set %s: %w", strings.Join(segs, "."), err)
		}
		return d.insertEntry(segs[0], chain(segs[1:], v))
	}
	if len(segs) == 1 && value == nil {
		return d.deleteEntry(idx)
	}
	var v *yaml.Node
	if len(segs) == 1 {
		old := d.root.Content[2*idx+1]
		if d.wasRepaired(segs[0]) { // quoted in the repaired copy only, not in the file
			plain := *old
			plain.Style = 0
			old = &plain
		}
		n, err := valueNode(value, old)
		if err != nil {
			return fmt.Errorf("set %s: %w", segs[0], err)
		}
		v = n
	} else {
		v = deepCopy(d.root.Content[2*idx+1])
		if err := setIn(v, segs[1:], value, segs[0]); err != nil {
			return err
		}
		if v.Kind == yaml.MappingNode && len(v.Content) == 0 && value == nil {
			return d.deleteEntry(idx)
		}
	}
	return d.replaceEntry(idx, v)
}

// setIn sets or deletes segs inside mapping m (which it may turn from null
// into a mapping); prefix is the key path so far, for errors.
func setIn(m *yaml.Node, segs []string, value any, prefix string) error {
	if yamlstruct.IsNull(m) {
		*m = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	if m.Kind != yaml.MappingNode {
		return fmt.Errorf("set %s.%s: %s is not a mapping", prefix, strings.Join(segs, "."), prefix)
	}
	i := keyIndex(m, segs[0])
	if value == nil && i < 0 {
		return nil
	}
	if len(segs) > 1 {
		if i < 0 {
			v, err := valueNode(value, nil)
			if err != nil {
				return fmt.Errorf("set %s: %w", prefix, err)
			}
			m.Content = append(m.Content, scalarKey(segs[0]), chain(segs[1:], v))
			return nil
		}
		child := m.Content[2*i+1]
		if err := setIn(child, segs[1:], value, prefix+"."+segs[0]); err != nil {
			return err
		}
		if value == nil && child.Kind == yaml.MappingNode && len(child.Content) == 0 {
			m.Content = slices.Delete(m.Content, 2*i, 2*i+2)
		}
		return nil
	}
	if value == nil {
		m.Content = slices.Delete(m.Content, 2*i, 2*i+2)
		return nil
	}
	var old *yaml.Node
	if i >= 0 {
		old = m.Content[2*i+1]
	}
	v, err := valueNode(value, old)
	if err != nil {
		return fmt.Errorf("set %s.%s: %w", prefix, segs[0], err)
	}
	if i >= 0 {
		m.Content[2*i+1] = v
	} else {
		m.Content = append(m.Content, scalarKey(segs[0]), v)
	}
	return nil
}

// chain wraps v in nested mappings for keys: chain([a b], v) is {a: {b: v}}.
func chain(keys []string, v *yaml.Node) *yaml.Node {
	for i := len(keys) - 1; i >= 0; i-- {
		v = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{scalarKey(keys[i]), v}}
	}
	return v
}

// valueNode encodes a Go value as a node, keeping the style and comments of
// the node it replaces so a changed value looks like the old one.
func valueNode(value any, old *yaml.Node) (*yaml.Node, error) {
	if n, ok := value.(*yaml.Node); ok {
		return n, nil
	}
	n := &yaml.Node{}
	if err := n.Encode(value); err != nil {
		return nil, fmt.Errorf("encode value: %w", err)
	}
	if n.Kind == yaml.SequenceNode && allScalars(n) {
		n.Style = yaml.FlowStyle
	}
	if old == nil || old.Kind != n.Kind {
		return n, nil
	}
	switch {
	case n.Kind != yaml.ScalarNode:
		n.Style = old.Style
	case old.Tag == n.Tag && old.Style != 0 && !strings.Contains(n.Value, "\n"):
		n.Style = old.Style
	}
	n.HeadComment, n.LineComment, n.FootComment = old.HeadComment, old.LineComment, old.FootComment
	return n, nil
}

// listLike encodes a list value in the form of old: a comma string stays a
// comma string, a list keeps its style.
func listLike(old *yaml.Node, value any) (*yaml.Node, error) {
	if old.Kind == yaml.ScalarNode {
		names, err := stringsOf(value)
		if err != nil {
			return nil, err
		}
		return valueNode(strings.Join(names, ", "), old)
	}
	return valueNode(value, old)
}

// plain turns the Go values a form produces into what Set writes: "" and
// nil delete, durations are written in Go form.
func plain(value any) any {
	switch v := value.(type) {
	case string:
		if v == "" {
			return nil
		}
	case time.Duration:
		return v.String()
	}
	return value
}

// normalize passes a value through YAML so it compares with what Get returns.
func normalize(value any) (any, error) {
	if value == nil {
		return nil, nil
	}
	n, err := valueNode(value, nil)
	if err != nil {
		return nil, err
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode value: %w", err)
	}
	return v, nil
}

// sameValue reports whether setting want would leave key as it is.
func sameValue(key string, cur any, ok bool, want any) bool {
	if want == nil || (isDenyKey(key) && isEmptyList(want)) {
		return !ok || (isDenyKey(key) && isEmptyList(cur))
	}
	if !ok {
		return false
	}
	if key == "timeout" {
		a, errA := time.ParseDuration(fmt.Sprint(cur))
		b, errB := time.ParseDuration(fmt.Sprint(want))
		if errA == nil && errB == nil {
			return a == b
		}
	}
	return reflect.DeepEqual(cur, want)
}

func isDenyKey(key string) bool { return key == "tools.deny" || key == "subagents.deny" }

func isListKey(key string) bool {
	return key == "tools.allow" || key == "tools.deny" || key == "subagents.allow"
}

func isEmptyList(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	return (rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array) && rv.Len() == 0
}

func stringsOf(value any) ([]string, error) {
	switch v := value.(type) {
	case []string:
		return v, nil
	case []any:
		out := make([]string, len(v))
		for i, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("list entry %v is not a string", x)
			}
			out[i] = s
		}
		return out, nil
	case string:
		return stringsOf(splitNames(v))
	}
	return nil, fmt.Errorf("want a list of names, got %T", value)
}

// splitNames splits a comma string of names as the decoder does.
func splitNames(s string) []any {
	out := []any{}
	for _, part := range splitToolNames(s) {
		out = append(out, part)
	}
	return out
}

func (d *Document) top(key string) *yaml.Node {
	return find(d.root, []string{key})
}

func (d *Document) topIndex(key string) int {
	if d.root == nil {
		return -1
	}
	return keyIndex(d.root, key)
}

// find walks mappings along segs; nil when any step is missing.
func find(n *yaml.Node, segs []string) *yaml.Node {
	for _, s := range segs {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		i := keyIndex(n, s)
		if i < 0 {
			return nil
		}
		n = n.Content[2*i+1]
	}
	return n
}

// keyIndex returns the pair index of key in mapping m, or -1.
func keyIndex(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i / 2
		}
	}
	return -1
}

func nonNullNode(n *yaml.Node) *yaml.Node {
	if yamlstruct.IsNull(n) {
		return nil
	}
	return n
}

func scalarKey(k string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}
}

func allScalars(n *yaml.Node) bool {
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode || strings.Contains(c.Value, "\n") {
			return false
		}
	}
	return true
}

func deepCopy(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, child := range n.Content {
		c.Content[i] = deepCopy(child)
	}
	c.Alias = n.Alias // aliases point into the original tree; encoding only reads them
	return &c
}

// wasRepaired reports whether the top-level key's line was quoted by
// repairYAML to be read at all: its style is not the file's.
func (d *Document) wasRepaired(key string) bool {
	for _, r := range d.repaired {
		if r.name == key {
			return true
		}
	}
	return false
}
