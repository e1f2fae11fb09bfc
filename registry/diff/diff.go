package diff

import (
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
	"go.yaml.in/yaml/v3"

	"github.com/agentry/agentry/registry"
)

// Sections splits a versioned file into the two parts a diff shows side by
// side: the frontmatter and the body of an agent or skill file, the whole
// text as body for a workflow (or any file without frontmatter) or a file
// that does not parse.
func Sections(file string, data []byte) (frontmatter, body string) {
	if path.Ext(file) != ".md" {
		return "", string(data)
	}
	d, err := registry.Parse(file, data)
	if err != nil {
		return "", string(data)
	}
	return d.Frontmatter(), d.Body()
}

// Summary describes in one line how after differs from before, for a
// version's history: the frontmatter keys that changed and the lines the
// body gained and lost ("description, tools changed; body +3 −1"). A nil
// before is a new file ("created"), a nil after a deleted one.
func Summary(file string, before, after []byte) string {
	switch {
	case before == nil && after == nil:
		return "no change"
	case before == nil:
		return fmt.Sprintf("created (%d lines)", lineCount(string(after)))
	case after == nil:
		return "deleted"
	case string(before) == string(after):
		return "no change"
	}
	fa, ba := Sections(file, before)
	fb, bb := Sections(file, after)
	var parts []string
	if keys := changedKeys(fa, fb, ba, bb, file); keys != "" {
		parts = append(parts, keys)
	}
	if path.Ext(file) == ".md" && ba != bb {
		parts = append(parts, "body "+lineDelta(ba, bb))
	} else if path.Ext(file) != ".md" && len(parts) == 0 {
		parts = append(parts, lineDelta(ba, bb))
	}
	if len(parts) == 0 {
		return "frontmatter " + lineDelta(fa, fb) // only layout or comments moved
	}
	return strings.Join(parts, "; ")
}

// changedKeys names the top-level keys whose values differ, for an agent's
// frontmatter or a workflow's whole document: "model, tools changed",
// "added retry", "removed budget". "" when the YAML does not parse or no
// value differs.
func changedKeys(fa, fb, ba, bb, file string) string {
	if path.Ext(file) != ".md" {
		fa, fb = ba, bb
	}
	ka, oka := topLevel(fa)
	kb, okb := topLevel(fb)
	if !oka || !okb {
		return ""
	}
	var changed, added, removed []string
	for _, k := range kb.order {
		old, had := ka.values[k]
		switch {
		case !had:
			added = append(added, k)
		case !reflect.DeepEqual(old, kb.values[k]):
			changed = append(changed, k)
		}
	}
	for _, k := range ka.order {
		if _, ok := kb.values[k]; !ok {
			removed = append(removed, k)
		}
	}
	var out []string
	if len(changed) > 0 {
		out = append(out, strings.Join(changed, ", ")+" changed")
	}
	if len(added) > 0 {
		out = append(out, "added "+strings.Join(added, ", "))
	}
	if len(removed) > 0 {
		out = append(out, "removed "+strings.Join(removed, ", "))
	}
	return strings.Join(out, ", ")
}

// mapping is a YAML mapping's top-level values, decoded, in key order.
type mapping struct {
	order  []string
	values map[string]any
}

func topLevel(text string) (mapping, bool) {
	m := mapping{values: map[string]any{}}
	if strings.TrimSpace(text) == "" {
		return m, true
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return m, false
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i].Value
		var v any
		if err := root.Content[i+1].Decode(&v); err != nil {
			return m, false
		}
		if _, dup := m.values[k]; !dup {
			m.order = append(m.order, k)
		}
		m.values[k] = v
	}
	return m, true
}

// lineDelta counts the lines b gained and lost against a: "+3 −1".
func lineDelta(a, b string) string {
	added, removed := 0, 0
	for _, d := range Lines(a, b) {
		switch d.Op {
		case Insert:
			added += len(d.Lines)
		case Delete:
			removed += len(d.Lines)
		}
	}
	return fmt.Sprintf("+%d −%d", added, removed)
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

// Op says what a Chunk is.
type Op int

// Diff operations.
const (
	Equal Op = iota
	Insert
	Delete
)

// Chunk is a run of lines that are equal in both texts, only in the
// second (inserted) or only in the first (deleted).
type Chunk struct {
	Op    Op
	Lines []string
}

// Lines compares two texts line by line (github.com/sergi/go-diff's
// line mode: Myers' algorithm over lines hashed to runes), for summaries
// and the side-by-side view. Lines are returned without their line breaks.
func Lines(a, b string) []Chunk {
	dmp := diffmatchpatch.New()
	ra, rb, lines := dmp.DiffLinesToRunes(a, b)
	diffs := dmp.DiffMainRunes(ra, rb, false)
	var out []Chunk
	for _, d := range dmp.DiffCharsToLines(diffs, lines) {
		op := Equal
		switch d.Type {
		case diffmatchpatch.DiffInsert:
			op = Insert
		case diffmatchpatch.DiffDelete:
			op = Delete
		}
		ls := strings.SplitAfter(d.Text, "\n")
		if ls[len(ls)-1] == "" {
			ls = ls[:len(ls)-1]
		}
		for i := range ls {
			ls[i] = strings.TrimRight(ls[i], "\r\n")
		}
		if n := len(out); n > 0 && out[n-1].Op == op {
			out[n-1].Lines = append(out[n-1].Lines, ls...)
			continue
		}
		out = append(out, Chunk{Op: op, Lines: slices.Clip(ls)})
	}
	return out
}
