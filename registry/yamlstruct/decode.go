package yamlstruct

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// Options say where the mapping is and how its scalars are read.
type Options struct {
	// Path names the mapping in messages and Problem.Path ("subagents",
	// "steps[2]"); "" for a file's top level.
	Path string
	// LineOffset is added to every line Decode reports or records: where
	// the YAML starts in its file, less one (a frontmatter after its ---).
	LineOffset int
	// Lenient reads scalars by their text (see the package doc).
	Lenient bool
}

// Problem is a key or a value Decode could not take.
type Problem struct {
	Line    int
	Path    string // the key's path: "retry.backoff", "steps[2].id"
	Key     string // the key itself: "backoff"
	Message string // what is wrong, naming Path
	// Unknown marks a key no field takes; Message then lists those that do.
	Unknown bool
}

// At is a value with the line of its key (of the item, in a list); Line is
// 0 when the key is absent or its value null.
type At[T any] struct {
	Value T
	Line  int
}

// Set reports whether the file gave a value.
func (a At[T]) Set() bool { return a.Line > 0 }

func (a *At[T]) at(line int) any { a.Line = line; return &a.Value }

// lined is At[T] for any T.
type lined interface{ at(line int) any }

// Entry is one key of a mapping read into a []Entry[T], in file order.
type Entry[T any] struct {
	Key   string
	Line  int
	Value T
}

func (e *Entry[T]) entry(key string, line int) any { e.Key, e.Line = key, line; return &e.Value }

// keyed is Entry[T] for any T.
type keyed interface {
	entry(key string, line int) any
}

// Decode fills the struct that out points to from the mapping n and
// returns the problems it found, in file order. A null or nil n is an
// empty mapping.
func Decode(n *yaml.Node, out any, opts Options) []Problem {
	d := &decoder{Options: opts}
	v := reflect.ValueOf(out).Elem()
	if isNull(n) {
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

var (
	nodeType     = reflect.TypeFor[yaml.Node]()
	durationType = reflect.TypeFor[time.Duration]()
)

// value decodes n into v; line is the line of n's key (of n, in a list).
// It reports false when it refused n itself (a wrong kind, a value that
// does not parse), not for problems inside it.
func (d *decoder) value(n *yaml.Node, v reflect.Value, path string, line int) bool {
	if isNull(n) {
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
	}
	switch t := v.Type(); {
	case t == nodeType:
		v.Set(reflect.ValueOf(n).Elem())
	case t == durationType:
		return d.duration(n, v, path)
	case t.Kind() == reflect.Pointer:
		p := reflect.New(t.Elem())
		if !d.value(n, p.Elem(), path, line) {
			return false
		}
		v.Set(p)
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
				Message: fmt.Sprintf("unknown key %s (expected %s)", p, oneOf(fields.keys))})
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

// scalarWords say what a scalar field wants, by its kind.
var scalarWords = map[reflect.Kind]string{
	reflect.String: "a string", reflect.Bool: "true or false",
	reflect.Int: "a whole number", reflect.Int64: "a whole number", reflect.Int32: "a whole number",
	reflect.Float64: "a number", reflect.Float32: "a number",
}

// scalar decodes n into a string, bool, int or float field.
func (d *decoder) scalar(n *yaml.Node, v reflect.Value, path string) bool {
	want, ok := scalarWords[v.Kind()]
	if !ok {
		panic(fmt.Sprintf("yamlstruct: field %s has type %s, which Decode does not read", path, v.Type()))
	}
	if n.Kind != yaml.ScalarNode || !d.takes(n.Tag, v.Kind()) {
		d.wrong(n, path, want)
		return false
	}
	var err error
	switch k := v.Kind(); {
	case k == reflect.String:
		v.SetString(n.Value)
	case d.Lenient && v.CanInt():
		var i int64
		if i, err = strconv.ParseInt(n.Value, 10, 64); err == nil && !v.OverflowInt(i) {
			v.SetInt(i)
		}
	case d.Lenient && v.CanFloat():
		var f float64
		if f, err = strconv.ParseFloat(n.Value, 64); err == nil {
			v.SetFloat(f)
		}
	default:
		err = n.Decode(v.Addr().Interface())
	}
	if err != nil {
		d.wrong(n, path, want)
		v.SetZero()
		return false
	}
	return true
}

// takes reports whether a scalar of the tag may go into a field of kind k;
// lenient, anything but a bool is judged by its text.
func (d *decoder) takes(tag string, k reflect.Kind) bool {
	switch {
	case k == reflect.Bool:
		return tag == "!!bool"
	case d.Lenient:
		return true
	case k == reflect.String:
		return tag == "!!str"
	case k == reflect.Float64 || k == reflect.Float32:
		return tag == "!!float" || tag == "!!int"
	}
	return tag == "!!int"
}

// duration decodes a duration written as text ("90s", "2m"); negative
// durations are refused.
func (d *decoder) duration(n *yaml.Node, v reflect.Value, path string) bool {
	if n.Kind != yaml.ScalarNode || !d.Lenient && n.Tag != "!!str" {
		d.wrong(n, path, `a duration such as "2m" or "90s"`)
		return false
	}
	t, err := time.ParseDuration(n.Value)
	if err != nil || t < 0 {
		d.problem(n.Line, path, fmt.Sprintf("%s must be a positive duration such as \"2m\" or \"90s\", got %q", path, n.Value))
		return false
	}
	v.SetInt(int64(t))
	return true
}

// wrong reports a value that is not what path wants.
func (d *decoder) wrong(n *yaml.Node, path, want string) {
	d.problem(n.Line, path, fmt.Sprintf("%s must be %s, got %s", orTop(path), want, Describe(n)))
}

func (d *decoder) problem(line int, path, msg string) {
	key := path[strings.LastIndexAny(path, ".]")+1:]
	d.probs = append(d.probs, Problem{Line: line + d.LineOffset, Path: path, Key: key, Message: msg})
}

// structFields are the keys a struct type reads.
type structFields struct {
	keys  []string       // yaml tag names, in field order
	index map[string]int // key → field index
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
	fieldCache.Store(t, f)
	return f
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == 0 || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// Describe names a node's value for a message: `string "three"`, `a list`.
func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	}
	kind := strings.TrimPrefix(n.Tag, "!!")
	if kind == "str" {
		kind = "string"
	}
	return fmt.Sprintf("%s %q", kind, n.Value)
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
