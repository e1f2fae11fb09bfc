package yamlstruct

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

type retry struct {
	MaxAttempts At[int] `yaml:"max_attempts"`
	Backoff     string  `yaml:"backoff"`
}

type step struct {
	ID      string        `yaml:"id"`
	Timeout time.Duration `yaml:"timeout"`
}

type file struct {
	Name    At[string]        `yaml:"name"`
	Enabled bool              `yaml:"enabled"`
	Temp    At[float64]       `yaml:"temperature"`
	Timeout At[time.Duration] `yaml:"timeout"`
	Retry   At[retry]         `yaml:"retry"`
	Tools   *yaml.Node        `yaml:"tools"`
	Default any               `yaml:"default"`
	Steps   []At[step]        `yaml:"steps"`
	Agents  []Entry[retry]    `yaml:"agents"`
	Tags    []string          `yaml:"tags"`
	skipped int               //lint:ignore U1000 an unexported field the decoder must pass over
}

func node(t *testing.T, src string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}

func TestDecodeFillsTheStructWithLines(t *testing.T) {
	src := `name: coord
enabled: true
temperature: 1
timeout: 90s
retry: {max_attempts: 2, backoff: linear}
tools: Read, Grep
default: {a: [1, x]}
steps:
  - id: one
  - {id: two, timeout: 1m}
agents:
  zeta: {backoff: none}
  alpha:
    max_attempts: 4
tags: [x, y]
color: blue
`
	var f file
	probs := Decode(node(t, src), &f, Options{LineOffset: 1})
	if len(probs) != 1 || !probs[0].Unknown || probs[0].Key != "color" || probs[0].Line != 17 {
		t.Fatalf("problems = %+v, want the unknown key color on line 17", probs)
	}
	if f.Name != (At[string]{"coord", 2}) || !f.Enabled || f.Temp.Value != 1 || f.Timeout.Value != 90*time.Second || f.Timeout.Line != 5 {
		t.Errorf("scalars: %+v", f)
	}
	if r := f.Retry.Value; f.Retry.Line != 6 || r.MaxAttempts != (At[int]{2, 6}) || r.Backoff != "linear" {
		t.Errorf("retry = %+v", f.Retry)
	}
	if f.Tools == nil || f.Tools.Value != "Read, Grep" || fmt.Sprint(f.Default) != "map[a:[1 x]]" {
		t.Errorf("tools %v, default %v", f.Tools, f.Default)
	}
	if len(f.Steps) != 2 || f.Steps[0].Value.ID != "one" || f.Steps[0].Line != 10 || f.Steps[1].Value.Timeout != time.Minute || f.Steps[1].Line != 11 {
		t.Errorf("steps = %+v", f.Steps)
	}
	if len(f.Agents) != 2 || f.Agents[0].Key != "zeta" || f.Agents[0].Line != 13 || f.Agents[1].Key != "alpha" || f.Agents[1].Value.MaxAttempts.Value != 4 {
		t.Errorf("agents, in file order = %+v", f.Agents)
	}
	if !slices.Equal(f.Tags, []string{"x", "y"}) {
		t.Errorf("tags = %q", f.Tags)
	}
}

func TestDecodeReportsEachProblemAtItsLine(t *testing.T) {
	tests := []struct {
		name, src string
		lenient   bool
		line      int
		path, msg string
	}{
		{"a number for a string", "name: 42\n", false, 1, "name", `name must be a string, got int "42"`},
		{"a list for a string", "name: [a]\n", false, 1, "name", "name must be a string, got a list"},
		{"text for a bool", "enabled: \"yes\"\n", false, 1, "enabled", `enabled must be true or false, got string "yes"`},
		{"text for a number", "temperature: warm\n", false, 1, "temperature", "temperature must be a number"},
		{"a quoted number, strict", "retry:\n  max_attempts: \"3\"\n", false, 2, "retry.max_attempts", `retry.max_attempts must be a whole number, got string "3"`},
		{"a number without unit for a duration", "timeout: 120\n", false, 1, "timeout", "timeout must be a duration such as"},
		{"a duration that does not parse", "timeout: soon\n", false, 1, "timeout", "timeout must be a positive duration"},
		{"a negative duration", "timeout: -1s\n", true, 1, "timeout", "must be a positive duration"},
		{"a list for a mapping", "retry: [a]\n", false, 1, "retry", "retry must be a mapping, got a list"},
		{"a mapping for a list", "steps: {id: a}\n", false, 1, "steps", "steps must be a list, got a mapping"},
		{"a bad field in a list item", "steps:\n  - id: a\n  - id: [b]\n", false, 3, "steps[1].id", "steps[1].id must be a string, got a list"},
		{"an unknown nested key", "retry:\n  backof: none\n", false, 2, "retry.backof", "unknown key retry.backof (expected max_attempts or backoff)"},
		{"a key set twice", "name: a\nenabled: true\nname: b\n", false, 3, "name", `key "name" is set twice (first on line 1)`},
		{"a key set twice in an entry", "agents:\n  a: {backoff: x, backoff: y}\n", false, 2, "agents.a.backoff", "set twice"},
		{"text for a number, lenient", "retry: {max_attempts: lots}\n", true, 1, "retry.max_attempts", "must be a whole number"},
		{"a bool for a bool stays strict when lenient", "enabled: \"true\"\n", true, 1, "enabled", "must be true or false"},
		{"a mapping as a key", "{a: b}: c\n", false, 1, "", "keys are names"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var f file
			probs := Decode(node(t, tc.src), &f, Options{Lenient: tc.lenient})
			if len(probs) != 1 {
				t.Fatalf("problems = %+v, want one", probs)
			}
			p := probs[0]
			if p.Line != tc.line || p.Path != tc.path || !strings.Contains(p.Message, tc.msg) {
				t.Fatalf("problem = %+v, want line %d path %q saying %q", p, tc.line, tc.path, tc.msg)
			}
		})
	}
}

func TestDecodeKeepsGoingAfterAProblem(t *testing.T) {
	var f file
	probs := Decode(node(t, "name: [a]\nenabled: 3\nretry: {max_attempts: 2}\n"), &f, Options{})
	if len(probs) != 2 || probs[0].Line != 1 || probs[1].Line != 2 || f.Retry.Value.MaxAttempts.Value != 2 {
		t.Fatalf("problems %+v, retry %+v", probs, f.Retry)
	}
	if f.Name.Set() {
		t.Errorf("a refused value is set: %+v", f.Name)
	}
}

func TestLenientReadsScalarsByTheirText(t *testing.T) {
	var f file
	probs := Decode(node(t, "name: 1.0\ntemperature: \"0.5\"\ntimeout: 0\nretry: {max_attempts: \"3\", backoff: 7}\n"), &f, Options{Lenient: true})
	if r := f.Retry.Value; len(probs) != 0 || f.Name.Value != "1.0" || f.Temp.Value != 0.5 || !f.Timeout.Set() || f.Timeout.Value != 0 ||
		r.MaxAttempts.Value != 3 || r.Backoff != "7" {
		t.Fatalf("problems %+v, file %+v %+v", probs, f, f.Retry)
	}
}

func TestNullIsAnAbsentKey(t *testing.T) {
	var f file
	probs := Decode(node(t, "name:\nretry: ~\nsteps:\ntools: null\n"), &f, Options{})
	if len(probs) != 0 || f.Name.Set() || f.Retry.Set() || f.Steps != nil || f.Tools != nil {
		t.Fatalf("problems %+v, file %+v", probs, f)
	}
}

func TestKeysListsTheTagsInFieldOrder(t *testing.T) {
	if got := Keys(retry{}); !slices.Equal(got, []string{"max_attempts", "backoff"}) {
		t.Fatalf("Keys = %q", got)
	}
	if got := Keys(&file{}); len(got) != 10 || got[0] != "name" || slices.Contains(got, "skipped") {
		t.Fatalf("Keys = %q", got)
	}
}
