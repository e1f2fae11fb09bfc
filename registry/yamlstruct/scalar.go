package yamlstruct

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

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

// IsNull reports whether a value is absent or YAML null: decoding leaves
// its field as if the key were not there.
func IsNull(n *yaml.Node) bool {
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
