package registry

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// span is the line range [start, end) of one top-level entry in the
// frontmatter, without the blank and comment lines that follow it (those
// belong to the gap before the next key and are never rewritten).
type span struct{ start, end int }

func splitLines(s string) []string {
	var lines []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

func isGapLine(line string) bool {
	t := strings.TrimRight(line, "\r\n")
	return strings.TrimSpace(t) == "" || strings.HasPrefix(t, "#")
}

func (d *Document) spans(lines []string) []span {
	if d.root == nil {
		return nil
	}
	n := len(d.root.Content) / 2
	out := make([]span, n)
	for i := range n {
		start := d.root.Content[2*i].Line - 1
		next := len(lines)
		if i+1 < n {
			next = d.root.Content[2*i+2].Line - 1
		}
		end := next
		for end > start+1 && isGapLine(lines[end-1]) {
			end--
		}
		out[i] = span{start, end}
	}
	return out
}

// blockRoot reports whether line-based editing applies: the frontmatter is a
// block mapping whose keys sit on their own lines.
func (d *Document) blockRoot() bool {
	return d.root == nil || d.root.Style&yaml.FlowStyle == 0
}

// replaceEntry rewrites the lines of top-level entry idx with value v.
func (d *Document) replaceEntry(idx int, v *yaml.Node) error {
	if !d.blockRoot() {
		d.root.Content[2*idx+1] = v
		return d.rewriteAll()
	}
	lines := splitLines(d.fm)
	sp := d.spans(lines)[idx]
	if kept, ok := flowListLines(lines, sp, d.root.Content[2*idx+1], v); ok {
		return d.applyLines(slices.Concat(lines[:sp.start], kept, lines[sp.end:]))
	}
	keepFoot := !gapHasComment(lines, sp.end, d.nextStart(idx, lines))
	text, err := d.encodeEntry(d.root.Content[2*idx], v, keepFoot)
	if err != nil {
		return err
	}
	return d.applyLines(slices.Concat(lines[:sp.start], keepOldSpacing(splitLines(text), lines[sp.start:sp.end]), lines[sp.end:]))
}

// flowListLines writes a flow list that was laid out one item a line
//
//	tools:
//	  [
//	    "codebase",
//	    "fetch"
//	  ]
//
// in the same layout, which yaml.v3 would fold onto one line. Items that
// stay keep their line; new items take the first item's indentation. It
// applies only when the old value is such a list of plain lines (no
// comments, brackets on lines of their own) and the new one a flow list of
// scalars.
func flowListLines(lines []string, sp span, old, v *yaml.Node) ([]string, bool) {
	if old.Kind != yaml.SequenceNode || v.Kind != yaml.SequenceNode || old.Style&yaml.FlowStyle == 0 ||
		v.Style&yaml.FlowStyle == 0 || len(old.Content) == 0 || len(v.Content) == 0 {
		return nil, false
	}
	first, last := old.Content[0].Line-1, old.Content[len(old.Content)-1].Line-1
	if first == last && old.Line-1 == first {
		return flowOneLine(lines, sp, first, v)
	}
	if first <= sp.start || last >= sp.end-1 || last-first != len(old.Content)-1 {
		return nil, false
	}
	itemText := map[*yaml.Node]string{}
	for i, item := range old.Content {
		l := lines[first+i]
		body := strings.TrimSpace(strings.TrimRight(l, "\r\n"))
		if item.Kind != yaml.ScalarNode || item.Line-1 != first+i || strings.ContainsAny(body, "#[]") {
			return nil, false
		}
		itemText[item] = strings.TrimSuffix(body, ",")
	}
	lastBody := strings.TrimSpace(strings.TrimRight(lines[last], "\r\n"))
	trailingComma := strings.HasSuffix(lastBody, ",")
	nl := "\n"
	if strings.HasSuffix(lines[first], "\r\n") {
		nl = "\r\n"
	}
	indent := lines[first][:len(lines[first])-len(strings.TrimLeft(lines[first], " \t"))]
	out := slices.Clone(lines[sp.start:first])
	for i, item := range v.Content {
		text, ok := itemText[item]
		if !ok {
			if item.Kind != yaml.ScalarNode {
				return nil, false
			}
			text = flowScalar(item)
		}
		if i < len(v.Content)-1 || trailingComma {
			text += ","
		}
		out = append(out, indent+text+nl)
	}
	return append(out, lines[last+1:sp.end]...), true
}

// flowOneLine rewrites a flow list that sits on one line ("tools: [ 'a',
// 'b' ]", or on the line after its key) keeping the spaces inside its
// brackets and between items, which yaml.v3 would normalise.
func flowOneLine(lines []string, sp span, at int, v *yaml.Node) ([]string, bool) {
	l := lines[at]
	open, close := strings.IndexByte(l, '['), strings.LastIndexByte(l, ']')
	if open < 0 || close < open || strings.Count(l, "[") != 1 || strings.Count(l, "]") != 1 {
		return nil, false
	}
	inner := l[open+1 : close]
	lead := inner[:len(inner)-len(strings.TrimLeft(inner, " "))]
	trail := inner[len(strings.TrimRight(inner, " ")):]
	sep := ", "
	if strings.Contains(inner, ",") && !strings.Contains(inner, ", ") {
		sep = ","
	}
	items := make([]string, len(v.Content))
	for i, item := range v.Content {
		if item.Kind != yaml.ScalarNode {
			return nil, false
		}
		items[i] = flowScalar(item)
	}
	line := l[:open+1] + lead + strings.Join(items, sep) + trail + l[close:]
	return slices.Concat(lines[sp.start:at], []string{line}, lines[at+1:sp.end]), true
}

// flowScalar writes a new list item in the quoting of its node.
func flowScalar(n *yaml.Node) string {
	switch {
	case n.Style&yaml.SingleQuotedStyle != 0:
		return "'" + strings.ReplaceAll(n.Value, "'", "''") + "'"
	case n.Style&yaml.DoubleQuotedStyle != 0 || strings.ContainsAny(n.Value, ":#,[]{}&*!|>'\"%@`") || n.Value == "":
		return strconv.Quote(n.Value)
	}
	return n.Value
}

// keepOldSpacing puts back the original of every re-encoded line that
// differs from an old line only in spacing (yaml.v3 collapses the space
// before a line comment and inside flow collections), so an edit shows
// up as a one-line diff.
func keepOldSpacing(fresh, old []string) []string {
	orig := make(map[string]string, len(old))
	for _, l := range old {
		orig[spacingKey(l)] = l
	}
	for i, l := range fresh {
		if o, ok := orig[spacingKey(l)]; ok {
			fresh[i] = o
		} else if i < len(old) {
			fresh[i] = keepCommentGap(l, old[i])
		}
	}
	return fresh
}

// keepCommentGap gives a changed line the spaces its old version had before
// the same line comment, so aligned comments stay aligned.
func keepCommentGap(fresh, old string) string {
	fi, oi := strings.LastIndex(fresh, " #"), strings.LastIndex(old, " #")
	if fi < 0 || oi < 0 || strings.TrimRight(fresh[fi:], "\r\n") != strings.TrimRight(old[oi:], "\r\n") {
		return fresh
	}
	gap := oi
	for gap > 0 && old[gap-1] == ' ' {
		gap--
	}
	return strings.TrimRight(fresh[:fi], " ") + old[gap:oi] + fresh[fi:]
}

// spacingKey is a line with its indentation kept and every other run of
// spaces collapsed.
func spacingKey(line string) string {
	body := strings.TrimLeft(line, " ")
	return line[:len(line)-len(body)] + strings.Join(strings.Fields(body), " ")
}

// deleteEntry removes top-level entry idx and the comment lines directly
// above it.
func (d *Document) deleteEntry(idx int) error {
	if !d.blockRoot() {
		d.root.Content = slices.Delete(d.root.Content, 2*idx, 2*idx+2)
		return d.rewriteAll()
	}
	lines := splitLines(d.fm)
	sp := d.spans(lines)[idx]
	start := headStart(lines, sp.start)
	return d.applyLines(slices.Concat(lines[:start], lines[sp.end:]))
}

// insertEntry adds a new top-level entry where canonicalOrder puts it.
func (d *Document) insertEntry(key string, v *yaml.Node) error {
	if !d.blockRoot() {
		d.root.Content = append(d.root.Content, scalarKey(key), v)
		return d.rewriteAll()
	}
	if !d.hasFM {
		nl := d.newline()
		d.hasFM, d.open, d.close = true, "---"+nl, "---"+nl
	}
	text, err := d.encodeEntry(scalarKey(key), v, true)
	if err != nil {
		return err
	}
	lines := splitLines(d.fm)
	at := d.insertLine(lines, key)
	return d.applyLines(slices.Concat(lines[:at], splitLines(text), lines[at:]))
}

func (d *Document) insertLine(lines []string, key string) int {
	spans := d.spans(lines)
	if pos := slices.Index(canonicalOrder, key); pos >= 0 {
		for j := pos - 1; j >= 0; j-- {
			if i := d.topIndex(canonicalOrder[j]); i >= 0 {
				return spans[i].end
			}
		}
		for j := pos + 1; j < len(canonicalOrder); j++ {
			if i := d.topIndex(canonicalOrder[j]); i >= 0 {
				return headStart(lines, spans[i].start)
			}
		}
	}
	if len(spans) > 0 {
		return spans[len(spans)-1].end
	}
	return len(lines)
}

// nextStart is the first line of the entry after idx (or the end).
func (d *Document) nextStart(idx int, lines []string) int {
	if 2*idx+2 < len(d.root.Content) {
		return d.root.Content[2*idx+2].Line - 1
	}
	return len(lines)
}

// headStart walks up from line start over the comment lines directly above.
func headStart(lines []string, start int) int {
	for start > 0 && strings.HasPrefix(strings.TrimSpace(lines[start-1]), "#") {
		start--
	}
	return start
}

func gapHasComment(lines []string, from, to int) bool {
	for _, l := range lines[from:to] {
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			return true
		}
	}
	return false
}

// encodeEntry encodes "key: value" with the file's indentation and line
// breaks. The key's head comment is left out: its lines are kept in place.
func (d *Document) encodeEntry(key, v *yaml.Node, keepFoot bool) (string, error) {
	k := *key
	k.HeadComment = ""
	val := v
	if !keepFoot {
		k.FootComment = ""
		c := *v
		c.FootComment = ""
		val = &c
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{&k, val}}
	return d.encode(m)
}

func (d *Document) encode(n *yaml.Node) (string, error) {
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(d.indent)
	if err := enc.Encode(n); err != nil {
		return "", fmt.Errorf("encode frontmatter: %w", err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("encode frontmatter: %w", err)
	}
	text := b.String()
	if d.crlf {
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	return text, nil
}

// rewriteAll re-encodes the whole frontmatter; only for flow-style roots.
func (d *Document) rewriteAll() error {
	text, err := d.encode(d.root)
	if err != nil {
		return err
	}
	return d.applyLines([]string{text})
}

// applyLines installs new frontmatter text and re-parses it so positions
// stay right for the next edit. A parse failure would be a bug in the
// splicing; the old text is kept.
func (d *Document) applyLines(lines []string) error {
	old, oldRoot := d.fm, d.root
	d.fm = strings.Join(lines, "")
	if err := d.parseFrontmatter(); err != nil {
		d.fm, d.root = old, oldRoot
		return fmt.Errorf("edit produced invalid frontmatter: %w", err)
	}
	return nil
}
