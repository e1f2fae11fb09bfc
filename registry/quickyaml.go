package registry

import (
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// quickYAML decodes the plain subset of YAML that most frontmatter is
// written in, into the very tree yaml.v3 builds (kinds, tags, styles, lines
// and columns; TestQuickYAMLMatchesYAMLv3 and FuzzQuickYAML compare them).
// It returns nil for anything outside the subset, and the caller decodes
// with yaml.v3: the subset is only what is cheap to recognise for certain.
// yaml.v3 was two thirds of loading a folder; on BenchmarkLoad10k's files
// this takes about a fifth of its CPU time (profile: 290 → 60 ms per
// 10,000 files).
//
// The subset: lines of "key: value", "key:" opening a more indented mapping
// or a list of "- item" lines, values that are plain one-line scalars
// (strings, decimal integers, durations like 2m) or one-line flow lists of
// plain words. No comments, quotes, tabs, CR, blank lines, anchors, tags,
// block scalars or multi-line values.
func quickYAML(src string) *yaml.Node {
	if src == "" || strings.ContainsAny(src, "#\t\r") || !utf8.ValidString(src) {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	q := quick{lines: lines}
	root := q.mapping(0)
	if root == nil || q.i != len(lines) {
		return nil
	}
	return q.node(yaml.Node{Kind: yaml.DocumentNode, Line: 1, Column: 1, Content: []*yaml.Node{root}})
}

type quick struct {
	lines []string
	i     int         // next line
	slab  []yaml.Node // where node takes its nodes from
}

// node returns n in memory shared by the file's nodes: one allocation
// instead of one per node.
func (q *quick) node(n yaml.Node) *yaml.Node {
	if len(q.slab) == cap(q.slab) {
		q.slab = make([]yaml.Node, 0, 2*len(q.lines)+8)
	}
	q.slab = append(q.slab, n)
	return &q.slab[len(q.slab)-1]
}

// indent returns the indentation of line i, or -1 past the end.
func (q *quick) indent(i int) int {
	if i >= len(q.lines) {
		return -1
	}
	l := q.lines[i]
	return len(l) - len(strings.TrimLeft(l, " "))
}

// mapping reads the "key..." lines at indentation ind from q.i on.
func (q *quick) mapping(ind int) *yaml.Node {
	m := q.node(yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: q.i + 1, Column: ind + 1})
	for q.i < len(q.lines) && q.indent(q.i) == ind {
		line := q.lines[q.i][ind:]
		key, rest, ok := strings.Cut(line, ":")
		if !ok || !quickKey(key) {
			return nil
		}
		k := q.node(yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, Line: q.i + 1, Column: ind + 1})
		var v *yaml.Node
		if rest == "" {
			q.i++
			v = q.nested(ind)
		} else if rest[0] == ' ' {
			v = q.value(rest[1:], q.i+1, ind+len(key)+3)
			q.i++
		}
		if v == nil {
			return nil
		}
		m.Content = append(m.Content, k, v)
	}
	if len(m.Content) == 0 || q.indent(q.i) > ind {
		return nil
	}
	return m
}

// nested reads the value of a "key:" line at indentation ind: a deeper
// mapping, or a list of "- " lines at ind or deeper.
func (q *quick) nested(ind int) *yaml.Node {
	next := q.indent(q.i)
	if next < ind {
		return nil // an empty value (null): left to yaml.v3
	}
	if strings.HasPrefix(q.lines[q.i][next:], "- ") {
		return q.list(next)
	}
	if next == ind {
		return nil
	}
	return q.mapping(next)
}

// list reads "- item" lines at indentation ind.
func (q *quick) list(ind int) *yaml.Node {
	s := q.node(yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: q.i + 1, Column: ind + 1})
	for q.i < len(q.lines) && q.indent(q.i) == ind {
		item, ok := strings.CutPrefix(q.lines[q.i][ind:], "- ")
		if !ok {
			break
		}
		v := q.scalar(item, q.i+1, ind+3)
		if v == nil {
			return nil
		}
		s.Content = append(s.Content, v)
		q.i++
	}
	if q.indent(q.i) > ind {
		return nil
	}
	return s
}

// value reads the value after "key: ", which starts at column col.
func (q *quick) value(v string, line, col int) *yaml.Node {
	if !strings.HasPrefix(v, "[") {
		return q.scalar(v, line, col)
	}
	body, ok := strings.CutSuffix(v[1:], "]")
	if !ok {
		return nil
	}
	s := q.node(yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Tag: "!!seq", Line: line, Column: col})
	if body == "" {
		return s
	}
	at := col + 1
	for item := range strings.SplitSeq(body, ", ") {
		if !quickWord(item) {
			return nil
		}
		s.Content = append(s.Content, q.node(yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: item, Line: line, Column: at}))
		at += len(item) + 2
	}
	return s
}

// scalar reads a plain one-line scalar that yaml.v3 resolves to a string
// or a decimal int, or returns nil.
func (q *quick) scalar(v string, line, col int) *yaml.Node {
	if v == "" || strings.HasSuffix(v, " ") || strings.HasSuffix(v, ":") || strings.Contains(v, ": ") || reserved(v) {
		return nil
	}
	tag := "!!str"
	switch c := v[0]; {
	case c >= '0' && c <= '9':
		digits := len(v) - len(strings.TrimLeft(v, "0123456789"))
		switch {
		case c == '0' && len(v) > 1:
			return nil
		case digits == len(v) && digits <= 18:
			tag = "!!int"
		case digits == len(v) || !duration(v[digits:]):
			return nil
		}
	case !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '/'):
		return nil
	}
	for _, r := range v {
		if !(r >= 0x20 && r < 0x7f || r >= 0xa0 && r <= 0xd7ff && r != 0x2028 && r != 0x2029 || r >= 0xe000 && r <= 0xfffd && r != 0xfeff || r >= 0x10000) {
			return nil
		}
	}
	return q.node(yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v, Line: line, Column: col})
}

// duration is the unit of a value like 30s or 2m, which yaml.v3 reads as
// a string.
func duration(unit string) bool {
	switch unit {
	case "ms", "s", "m", "h", "d":
		return true
	}
	return false
}

// quickKey is a key of letters, digits, _ and -, starting with a letter
// or _.
func quickKey(k string) bool { return quickName(k, "") }

// quickWord is a flow list item: a key that may also hold . and /.
func quickWord(w string) bool { return quickName(w, "./") }

func quickName(s, extra string) bool {
	if s == "" || len(s) > 128 || reserved(s) || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z' || s[0] == '_') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || strings.IndexByte(extra, c) >= 0) {
			return false
		}
	}
	return true
}

// reserved are the words yaml.v3 resolves to a bool or null.
func reserved(s string) bool {
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL":
		return true
	}
	return false
}
