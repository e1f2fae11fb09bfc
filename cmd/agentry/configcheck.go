package main

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// decodeConfig decodes an agentry.yaml document over cfg. Its errors name
// the file, the line and the key, as a user wrote them: an unknown key with
// the nearest known one and every key known at that level, a value of the
// wrong type with what the key takes. yaml.v3's own messages name Go types
// ("field agent not found in type main.Config"), which mean nothing to a
// user, so the document is walked against Config's fields first.
func decodeConfig(cfg *Config, file string, data []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("config %s", syntaxError(file, err))
	}
	if len(doc.Content) == 0 {
		return nil // an empty file
	}
	keys := map[int]string{} // line → key path of a scalar or list value there
	if err := checkKeys(doc.Content[0], reflect.TypeFor[Config](), "", file, keys); err != nil {
		return err
	}
	if err := checkCommandPatterns(doc.Content[0], file); err != nil {
		return err
	}
	err := doc.Content[0].Decode(cfg)
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		return fmt.Errorf("config %s", typeError(file, te.Errors[0], keys))
	}
	if err != nil {
		return fmt.Errorf("config %s: %w", file, err)
	}
	return nil
}

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

// checkKeys reports the first key of n that t has no field for, and records
// the key path of every value that is not a section in keys.
func checkKeys(n *yaml.Node, t reflect.Type, path, file string, keys map[int]string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		return nil
	case reflect.PointerTo(t).Implements(unmarshalerType):
		return nil // a section that decodes itself checks its own keys, with lines
	case t.Kind() == reflect.Map && t.Elem().Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := checkKeys(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value), file, keys); err != nil {
				return err
			}
		}
		return nil
	case t == reflect.TypeFor[time.Duration]():
		// A bare 0 means "none" (budget: {wall_clock: 0}); yaml.v3 takes
		// durations from strings only, and "0" parses as one. Other bare
		// numbers stay errors: their unit would be a guess.
		if n.Kind == yaml.ScalarNode && n.Tag == "!!int" && n.Value == "0" {
			n.Tag = "!!str"
		}
		keys[n.Line] = path
		return nil
	case t.Kind() != reflect.Struct:
		keys[n.Line] = path
		return nil
	case n.Kind != yaml.MappingNode:
		return fmt.Errorf("config %s:%d: %s is a section: write its keys below it (%s)", file, n.Line, sectionName(path), strings.Join(fieldNames(t), ", "))
	}
	known := fieldNames(t)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		f, ok := fieldByKey(t, k.Value)
		if !ok {
			return fmt.Errorf("config %s:%d: unknown key %q %s%s (known keys: %s)", file, k.Line, k.Value,
				where(path), didYouMean(k.Value, known, ""), strings.Join(known, ", "))
		}
		if err := checkKeys(v, f.Type, join(path, k.Value), file, keys); err != nil {
			return err
		}
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func where(path string) string {
	if path == "" {
		return "at the top level"
	}
	return "in " + path
}

func sectionName(path string) string {
	if path == "" {
		return "the file"
	}
	return path
}

// fieldNames are the yaml keys of t's fields, in declaration order.
func fieldNames(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if name := yamlName(t.Field(i)); name != "" {
			out = append(out, name)
		}
	}
	return out
}

func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		if yamlName(t.Field(i)) == key {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
}

func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" || !f.IsExported() {
		return ""
	}
	if name == "" {
		return strings.ToLower(f.Name)
	}
	return name
}

var (
	yamlLine      = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	yamlUnmarshal = regexp.MustCompile("^cannot unmarshal !!(\\w+)(?: `(.*)`)? into (.+)$")
)

// syntaxError turns "yaml: line 3: did not find expected key" into
// "FILE:3: did not find expected key".
func syntaxError(file string, err error) string {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		return file + ":" + m[1] + ": " + m[2]
	}
	return file + ": " + strings.TrimPrefix(err.Error(), "yaml: ")
}

// typeError turns "line 2: cannot unmarshal !!str `three` into int" into
// "FILE:2: delegation.max_depth: "three" is not a whole number".
func typeError(file, msg string, keys map[int]string) string {
	m := yamlLine.FindStringSubmatch(msg)
	if m == nil {
		return file + ": " + msg
	}
	line, _ := strconv.Atoi(m[1])
	u := yamlUnmarshal.FindStringSubmatch(m[2])
	if u == nil {
		return fmt.Sprintf("%s:%d: %s", file, line, m[2])
	}
	key := keys[line]
	if key == "" {
		key = "a value"
	}
	if u[2] == "" { // a list or a section where a value belongs
		return fmt.Sprintf("%s:%d: %s: got %s, want %s", file, line, key, kinds[u[1]], wants(u[3]))
	}
	return fmt.Sprintf("%s:%d: %s: %q is not %s", file, line, key, u[2], wants(u[3]))
}

// kinds are YAML's node tags in a user's words.
var kinds = map[string]string{"seq": "a list", "map": "a section of keys", "str": "text", "int": "a number", "bool": "true or false", "float": "a number", "null": "nothing"}

// wants names what a Go type takes, in a user's words.
func wants(goType string) string {
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
