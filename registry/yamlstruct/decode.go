package yamlstruct

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// Decode fills the struct that out points to from the mapping n and
// returns the problems it found, in file order. A null or nil n is an
// empty mapping.
func Decode(n *yaml.Node, out any, opts Options) []Problem {
	d := &decoder{Options: opts}
	v := reflect.ValueOf(out).Elem()
	if IsNull(n) {
		return nil
	}
	d.value(n, v, opts.Path, n.Line)
	return d.probs
}

// Keys returns the keys the struct that v is (or points to) reads, in
// field order.
func Keys(v any) []string {
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return fieldsOf(t).keys
}

type decoder struct {
	Options
	probs []Problem
}

var durationType = reflect.TypeFor[time.Duration]()

// value decodes n into v; line is the line of n's key (of n, in a list).
// It reports false when it refused n itself (a wrong kind, a value that
// does not parse), not for problems inside it.
func (d *decoder) value(n *yaml.Node, v reflect.Value, path string, line int) bool {
	if IsNull(n) {
		return true
	}
	switch p := v.Addr().Interface().(type) {
	case lined:
		if !d.value(n, reflect.ValueOf(p.at(line+d.LineOffset)).Elem(), path, line) {
			p.at(0) // a refused value is no value: At.Set says so
			return false
		}
		return true
	case **yaml.Node:
		*p = n
		return true
	case yaml.Unmarshaler:
		if err := p.UnmarshalYAML(n); err != nil {
			d.problem(n.Line, path, fmt.Sprintf("%s: %v", path, err))
			return false
		}
		return true
	}
	switch t := v.Type(); {
	case t == durationType:
		return d.duration(n, v, path)
	case t.Kind() == reflect.Struct:
		return d.mapping(n, v, path)
	case t.Kind() == reflect.Slice && reflect.PointerTo(t.Elem()).Implements(reflect.TypeFor[keyed]()):
		return d.entries(n, v, path)
	case t.Kind() == reflect.Slice:
		return d.sequence(n, v, path)
	case t.Kind() == reflect.Interface:
		if err := n.Decode(v.Addr().Interface()); err != nil {
			d.problem(n.Line, path, fmt.Sprintf("%s: %s", path, strings.TrimPrefix(err.Error(), "yaml: ")))
			return false
		}
	default:
		return d.scalar(n, v, path)
	}
	return true
}

// mapping decodes the keys of n into the fields of the struct v.
func (d *decoder) mapping(n *yaml.Node, v reflect.Value, path string) bool {
	if n.Kind != yaml.MappingNode {
		d.wrong(n, path, "a mapping")
		return false
	}
	fields := fieldsOf(v.Type())
	for k, val := range d.pairs(n, path) {
		p := join(path, k.Value)
		i, ok := fields.index[k.Value]
		if !ok {
			d.probs = append(d.probs, Problem{Line: k.Line + d.LineOffset, Path: p, Key: k.Value, Unknown: true,
				Message: "unknown key " + p + " (expected " + fields.expected + ")"})
			continue
		}
		d.value(val, v.Field(i), p, k.Line)
	}
	return true
}

// entries decodes the mapping n into the []Entry[T] v.
func (d *decoder) entries(n *yaml.Node, v reflect.Value, path string) bool {
	if n.Kind != yaml.MappingNode {
		d.wrong(n, path, "a mapping")
		return false
	}
	s := reflect.MakeSlice(v.Type(), 0, len(n.Content)/2)
	for k, val := range d.pairs(n, path) {
		e := reflect.New(v.Type().Elem())
		target := e.Interface().(keyed).entry(k.Value, k.Line+d.LineOffset)
		d.value(val, reflect.ValueOf(target).Elem(), join(path, k.Value), k.Line)
		s = reflect.Append(s, e.Elem())
	}
	v.Set(s)
	return true
}

// Pairs yields the key and value nodes of a mapping as they stand, for a
// caller that walks frontmatter by hand (nothing for nil or a node that
// is no mapping); Decode's own walk also reports repeated keys.
func Pairs(m *yaml.Node) func(func(*yaml.Node, *yaml.Node) bool) {
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

// pairs yields the keys and values of the mapping n, reporting a key given
// twice (and skipping it) and a key that is not a string.
func (d *decoder) pairs(n *yaml.Node, path string) func(func(k, v *yaml.Node) bool) {
	return func(yield func(k, v *yaml.Node) bool) {
		first := make(map[string]int, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := join(path, k.Value)
			if k.Kind != yaml.ScalarNode {
				d.problem(k.Line, path, fmt.Sprintf("a key of %s is %s: keys are names", orTop(path), Describe(k)))
				continue
			}
			if line, dup := first[k.Value]; dup {
				d.problem(k.Line, p, fmt.Sprintf("key %q is set twice (first on line %d)", p, line+d.LineOffset))
				continue
			}
			first[k.Value] = k.Line
			if !yield(k, v) {
				return
			}
		}
	}
}

// sequence decodes the list n into the slice v.
func (d *decoder) sequence(n *yaml.Node, v reflect.Value, path string) bool {
	if n.Kind != yaml.SequenceNode {
		d.wrong(n, path, "a list")
		return false
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		d.value(item, s.Index(i), fmt.Sprintf("%s[%d]", path, i), item.Line)
	}
	v.Set(s)
	return true
}

// structFields are the keys a struct type reads.
type structFields struct {
	keys     []string       // yaml tag names, in field order
	index    map[string]int // key → field index
	expected string         // keys as an unknown key's message lists them
}

var fieldCache sync.Map // reflect.Type → *structFields

func fieldsOf(t reflect.Type) *structFields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*structFields)
	}
	f := &structFields{index: map[string]int{}}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		f.keys = append(f.keys, name)
		f.index[name] = i
	}
	f.expected = oneOf(f.keys)
	fieldCache.Store(t, f)
	return f
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func orTop(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

// oneOf lists keys as "a, b or c".
func oneOf(keys []string) string {
	if len(keys) < 2 {
		return strings.Join(keys, "")
	}
	return strings.Join(keys[:len(keys)-1], ", ") + " or " + keys[len(keys)-1]
}
