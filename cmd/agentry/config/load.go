package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Sources are where a configuration comes from, in the order they apply.
type Sources struct {
	// File is the config file the user named; "" reads DefaultFile when
	// it exists.
	File string
	// Environ is the process environment; its AGENTRY_* variables apply
	// over the file.
	Environ []string
	// Flags are the keys set on the command line; they apply last.
	Flags []Setting
}

// Setting is one key set outside the file: by an AGENTRY_* variable or a
// flag.
type Setting struct {
	Key    []string // the key's path: [delegation max_depth]
	Value  string   // as given; a list key takes a comma-separated list
	Source string   // who set it, for errors: "environment AGENTRY_DB", "--db"
}

// Load builds the configuration from its sources: the defaults, the file,
// the environment, the flags; then it checks the result.
func Load(src Sources) (Config, error) {
	cfg := Default()
	cfg.File = cmp.Or(src.File, DefaultFile)
	if err := cfg.readFile(src.File != ""); err != nil {
		return Config{}, err
	}
	for _, s := range append(EnvSettings(src.Environ), src.Flags...) {
		if err := cfg.Set(s); err != nil {
			return Config{}, err
		}
	}
	if err := cfg.applyCompat(); err != nil {
		return Config{}, err
	}
	return cfg, cfg.validate()
}

// readFile decodes c.File over c. A missing default file is fine; a
// missing file the user named is not.
func (c *Config) readFile(named bool) error {
	data, err := os.ReadFile(c.File)
	if errors.Is(err, fs.ErrNotExist) && !named {
		return nil
	}
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return c.decodeFile(c.File, data)
}

// decodeFile decodes an agentry.yaml document over c; its problems name
// the file and the line.
func (c *Config) decodeFile(file string, data []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("config %s", syntaxError(file, err))
	}
	if len(doc.Content) == 0 {
		return nil // an empty file, or comments only
	}
	if err := checkFilePatterns(doc.Content[0], file); err != nil {
		return err
	}
	p, err := c.decode(data)
	if p != nil {
		return fmt.Errorf("config %s:%d: %s", file, p.line, c.explain(*p))
	}
	if err != nil { // a section that decodes itself (hooks) names its line
		return fmt.Errorf("config %s: %w", file, err)
	}
	return nil
}

// Set applies one setting over c as if the file had said it: c is written
// back as YAML with the key set and decoded like the file, so the
// environment and flags are held to the same keys and types (and a map
// entry keeps the keys it had). A list key splits its value at commas; a
// text key takes it as it is (AGENTRY_DB=null is a file named null).
func (c *Config) Set(s Setting) error {
	at := lookup(c.template(), s.Key)
	p, err := c.setAs(s, at != nil && at.Kind == yaml.SequenceNode, s.Value == "" || at != nil && at.Tag == "!!str")
	if p != nil && p.kind == "str" && strings.HasPrefix(p.into, "[]") { // a list in a map entry c had no template for
		p, err = c.setAs(s, true, false)
	}
	if p != nil {
		return fmt.Errorf("%s: %s", s.Source, c.explain(*p))
	}
	if err != nil {
		return fmt.Errorf("%s: %w", s.Source, err)
	}
	return nil
}

// setAs sets s in c as a list or a scalar (text: never a number or null).
func (c *Config) setAs(s Setting, list, text bool) (*problem, error) {
	leaf := &yaml.Node{Kind: yaml.ScalarNode, Value: s.Value}
	if text {
		leaf.Tag = "!!str"
	}
	if list {
		leaf = &yaml.Node{Kind: yaml.SequenceNode}
		for _, item := range strings.Split(s.Value, ",") {
			if item = strings.TrimSpace(item); item != "" {
				leaf.Content = append(leaf.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: item})
			}
		}
	}
	doc := c.template()
	put(doc, s.Key, leaf)
	data, err := yaml.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return c.decode(data)
}

// decode decodes data over c with yaml.v3, which refuses unknown keys
// (KnownFields) and values of the wrong type, each with its line; the
// first such problem comes back with the key it is about.
func (c *Config) decode(data []byte) (*problem, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	err := dec.Decode(c)
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return nil, err
	}
	p := parseProblem(te.Errors[0])
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) == nil && len(doc.Content) > 0 {
		p.path, _ = pathOf(doc.Content[0], p, nil)
	}
	return &p, err
}

// EnvSettings are the settings of the AGENTRY_* variables of environ, in
// name order: nested keys joined by "__", lists comma-separated, map
// entries addressed by key (AGENTRY_MODELS__ALIASES__FAST=openai:gpt-4.1-mini).
func EnvSettings(environ []string) []Setting {
	var out []Setting
	for _, kv := range slices.Sorted(slices.Values(environ)) {
		name, value, _ := strings.Cut(kv, "=")
		if key, ok := strings.CutPrefix(name, "AGENTRY_"); ok {
			out = append(out, Setting{Key: strings.Split(strings.ToLower(key), "__"), Value: value, Source: "environment " + name})
		}
	}
	return out
}

// template is c written back as YAML: every key c has, in declaration
// order, each with the kind of value it takes. It is what a key is checked
// against when a message lists the keys of a section.
func (c *Config) template() *yaml.Node {
	var n yaml.Node
	if err := n.Encode(c); err != nil {
		return nil
	}
	return &n
}

// lookup is the value at path under the mapping n, or nil.
func lookup(n *yaml.Node, path []string) *yaml.Node {
	for _, key := range path {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}

// keysIn are the keys of the section at path of the mapping n, in order.
func keysIn(n *yaml.Node, path []string) []string {
	sec := lookup(n, path)
	if sec == nil || sec.Kind != yaml.MappingNode {
		return nil
	}
	keys := make([]string, 0, len(sec.Content)/2)
	for i := 0; i+1 < len(sec.Content); i += 2 {
		keys = append(keys, sec.Content[i].Value)
	}
	return keys
}

// put sets the value at path under the mapping n, making the sections on
// the way; a value in the way becomes one, and yaml.v3 then says it was one.
func put(n *yaml.Node, path []string, value *yaml.Node) {
	for i, key := range path {
		next := lookup(n, path[i:i+1])
		switch {
		case i == len(path)-1 && next != nil:
			*next = *value
		case i == len(path)-1:
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, value)
		case next == nil:
			next = &yaml.Node{Kind: yaml.MappingNode}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, next)
		case next.Kind != yaml.MappingNode:
			*next = yaml.Node{Kind: yaml.MappingNode}
		}
		n = next
	}
}
