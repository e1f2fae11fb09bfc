package config

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentry/agentry/cmd/agentry/suggest"
	"github.com/agentry/agentry/registry"
)

// yaml.v3 reports a problem as "line N: field agnets not found in type
// config.Config" or "line N: cannot unmarshal !!str `three` into int". The
// user wrote keys and values, not Go types: explain says it in their words,
// with the key's path, the nearest known key and the keys a section takes.

var (
	yamlLine     = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	unknownField = regexp.MustCompile(`^field (\S+) not found in type .+$`)
	wrongType    = regexp.MustCompile("^cannot unmarshal !!(\\w+)(?: `(.*)`)? into (.+)$")
)

// problem is one of yaml.v3's messages, taken apart.
type problem struct {
	line  int
	path  []string // the key it is about (an unknown key's ends with it)
	field string   // an unknown key
	// A value of the wrong type: its YAML kind (str, int, seq, map, ...),
	// its text for a scalar, and the Go type it did not fit.
	kind, value, into string
	text              string // a message of another shape, as yaml.v3 wrote it
}

func parseProblem(msg string) problem {
	m := yamlLine.FindStringSubmatch(msg)
	if m == nil {
		return problem{text: msg}
	}
	line, _ := strconv.Atoi(m[1])
	p := problem{line: line, text: m[2]}
	if f := unknownField.FindStringSubmatch(m[2]); f != nil {
		p.field = f[1]
	} else if w := wrongType.FindStringSubmatch(m[2]); w != nil {
		p.kind, p.value, p.into = w[1], w[2], w[3]
	}
	return p
}

// explain words p, the keys of c (as decoded so far) at hand.
func (c *Config) explain(p problem) string {
	tmpl, path := c.template(), strings.Join(p.path, ".")
	switch {
	case p.field != "":
		parent := p.path[:max(len(p.path)-1, 0)]
		known, where := keysIn(tmpl, parent), "at the top level"
		if len(parent) > 0 {
			where = "in " + strings.Join(parent, ".")
		}
		return fmt.Sprintf("unknown key %q %s%s (known keys: %s)", p.field, where, suggest.DidYouMean(p.field, known, ""), strings.Join(known, ", "))
	case p.into == "":
		return p.text
	case isSection(p.into):
		msg := cmp.Or(path, "the file") + " is a section of keys, not a value"
		if keys := keysIn(tmpl, p.path); len(keys) > 0 {
			msg += " (its keys: " + strings.Join(keys, ", ") + ")"
		}
		return msg
	case p.kind == "seq" || p.kind == "map": // a list or a section where a value belongs
		return fmt.Sprintf("%s: got %s, want %s", cmp.Or(path, "a value"), map[string]string{"seq": "a list", "map": "a section of keys"}[p.kind], Wants(p.into))
	}
	return fmt.Sprintf("%s: %q is not %s", cmp.Or(path, "a value"), p.value, Wants(p.into))
}

// isSection reports whether a Go type yaml.v3 named is one of Config's
// sections (a struct of ours, or an anonymous one), not a value.
func isSection(goType string) bool {
	if strings.HasPrefix(goType, "map[") || strings.HasPrefix(goType, "[]") || goType == "time.Duration" {
		return false
	}
	return strings.HasPrefix(goType, "struct") || strings.Contains(goType, ".")
}

// Wants names what a Go type takes, in a user's words: for a key of the
// file here, for a flag's value in the CLI (flagWants).
func Wants(goType string) string {
	switch {
	case goType == "time.Duration":
		return "a duration like 90s or 10m"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"):
		return "a whole number"
	case strings.HasPrefix(goType, "float"):
		return "a number"
	case goType == "bool":
		return "true or false"
	case goType == "string":
		return "a single value"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case strings.HasPrefix(goType, "map["):
		return "a map of names to values"
	}
	return "what this key takes (" + goType + ")"
}

// syntaxError turns "yaml: line 3: did not find expected key" into
// "FILE:3: did not find expected key".
func syntaxError(file string, err error) string {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		return file + ":" + m[1] + ": " + m[2]
	}
	return file + ": " + strings.TrimPrefix(err.Error(), "yaml: ")
}

// pathOf is the key p is about under the mapping or list n: the unknown
// key on its line, or the key whose value on that line is the one of the
// wrong type (a list item is its list's).
func pathOf(n *yaml.Node, p problem, path []string) ([]string, bool) {
	for i, child := range n.Content {
		at := path
		if n.Kind == yaml.MappingNode {
			if i%2 == 0 {
				if p.field != "" && child.Line == p.line && child.Value == p.field {
					return append(path, child.Value), true
				}
				continue
			}
			at = append(slices.Clip(path), n.Content[i-1].Value)
		}
		kind := map[yaml.Kind]string{yaml.SequenceNode: "seq", yaml.MappingNode: "map"}[child.Kind]
		if p.field == "" && child.Line == p.line && (child.Kind == yaml.ScalarNode && child.Value == p.value || kind == p.kind) {
			return at, true
		}
		if found, ok := pathOf(child, p, at); ok {
			return found, true
		}
	}
	return nil, false
}

// checkFilePatterns reports, with its line, the first global tool pattern
// in the file that validateCommandPatterns would refuse.
func checkFilePatterns(doc *yaml.Node, file string) error {
	for _, list := range []string{"allow", "deny", "ask"} {
		seq := lookup(doc, []string{"permissions", "tools", list})
		if seq == nil || seq.Kind != yaml.SequenceNode {
			continue
		}
		for _, item := range seq.Content {
			if why := registry.CommandPatternProblem(item.Value); why != "" {
				return fmt.Errorf("config %s:%d: permissions.tools.%s: %s", file, item.Line, list, why)
			}
		}
	}
	return nil
}
