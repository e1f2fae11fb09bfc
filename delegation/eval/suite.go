package eval

import (
	"fmt"

	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry/yamlstruct"
)

// Suite is one evals/*.yaml file: what it evaluates and its cases.
type Suite struct {
	// Name is the file's name without .yaml or .yml: evals are stored and
	// listed under it.
	Name string
	File string
	// Agent or Workflow is what every case runs (exactly one is set).
	Agent, Workflow string
	// Model is the model spec cases without their own turns run on ("" is
	// each agent's own model). A script:FILE path is taken from the
	// working directory when it exists there, else beside the suite.
	Model string
	// Judge is the model that judges rubrics; "" is Model, else the
	// configured default.
	Judge       string
	Description string
	Cases       []Case
}

// Target is the agent or workflow the suite evaluates.
func (s *Suite) Target() string {
	if s.Workflow != "" {
		return s.Workflow
	}
	return s.Agent
}

// Kind is "agent" or "workflow".
func (s *Suite) Kind() string {
	if s.Workflow != "" {
		return "workflow"
	}
	return "agent"
}

// Case is one run of the suite's target and what is expected of it.
type Case struct {
	Name string
	Line int
	// Task is the agent's task; Inputs a workflow's inputs.
	Task   string
	Inputs map[string]any
	// Script, when set, is the case's own script model: every agent of
	// the run, and the judge, play these turns.
	Script *script.Model
	Expect Expect
}

// Expect is what a case's run must show. Zero fields expect nothing.
type Expect struct {
	OutputContains []string
	OutputRegex    *regexp.Regexp
	OutputSchema   *jsonschema.Schema
	Trajectory     *Trajectory
	MaxTokens      int64
	MaxCost        float64 // USD
	MaxTime        time.Duration
	NoDenied       bool
	Rubric         string
	// Status is the status the run must end with; "" is ok.
	Status string
}

// Trajectory is the sub-agents and tools a run is expected to call.
type Trajectory struct {
	Agents []string
	Tools  []string
	// Order is OrderExact (the default), OrderInOrder or OrderAny.
	Order    string
	MinScore float64 // default 1
}

// Trajectory orders.
const (
	OrderExact   = "exact"
	OrderInOrder = "in_order"
	OrderAny     = "any"
)

// Problem is what is wrong with a suite file, and where.
type Problem struct {
	File    string
	Line    int
	Message string
}

func (p Problem) Error() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message)
	}
	return p.File + ": " + p.Message
}

// IsFile reports whether a path names a suite: a .yaml or .yml file whose
// name does not end in .script.yaml (a suite's script model beside it).
func IsFile(p string) bool {
	base := path.Base(filepath.ToSlash(p))
	if strings.HasPrefix(base, ".") || strings.HasSuffix(base, ".script.yaml") || strings.HasSuffix(base, ".script.yml") {
		return false
	}
	return strings.HasSuffix(base, ".yaml") || strings.HasSuffix(base, ".yml")
}

// SuiteName is the name a suite file is stored and listed under.
func SuiteName(file string) string {
	base := path.Base(filepath.ToSlash(file))
	return strings.TrimSuffix(strings.TrimSuffix(base, ".yaml"), ".yml")
}

// Load reads and parses the suite at path.
func Load(p string) (*Suite, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("eval suite: %w", err)
	}
	return Parse(p, data)
}

// at is a decoded value with the line of its key.
type at[T any] = yamlstruct.At[T]

// rawSuite is a suite file's keys, as yamlstruct decodes them: scalars by
// their text (name: 42 is "42", max_tokens: "5" is 5), an unknown key a
// problem listing the keys its level takes.
type rawSuite struct {
	Agent       string            `yaml:"agent"`
	Workflow    at[string]        `yaml:"workflow"`
	Model       string            `yaml:"model"`
	Judge       string            `yaml:"judge"`
	Description string            `yaml:"description"`
	Cases       at[[]at[rawCase]] `yaml:"cases"`
}

type rawCase struct {
	Name   string         `yaml:"name"`
	Task   string         `yaml:"task"`
	Inputs at[*yaml.Node] `yaml:"inputs"`
	Script at[*yaml.Node] `yaml:"script"`
	Expect rawExpect      `yaml:"expect"`
}

type rawExpect struct {
	OutputContains words             `yaml:"output_contains"`
	OutputRegex    at[string]        `yaml:"output_regex"`
	OutputSchema   at[any]           `yaml:"output_schema"`
	Trajectory     at[rawTrajectory] `yaml:"trajectory"`
	MaxTokens      int64             `yaml:"max_tokens"`
	MaxCost        float64           `yaml:"max_cost"`
	MaxTime        at[string]        `yaml:"max_time"`
	NoDenied       bool              `yaml:"no_denied"`
	Rubric         string            `yaml:"rubric"`
	Status         at[string]        `yaml:"status"`
}

type rawTrajectory struct {
	Agents   words       `yaml:"agents"`
	Tools    words       `yaml:"tools"`
	Order    string      `yaml:"order"`
	MinScore at[float64] `yaml:"min_score"`
}

// words is a list of strings that may be written as one string.
type words []string

func (w *words) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*w = words{n.Value}
		return nil
	case yaml.SequenceNode:
		list := make(words, len(n.Content))
		for i, item := range n.Content {
			if item.Kind != yaml.ScalarNode {
				return fmt.Errorf("item %d is %s, not a string", i+1, yamlstruct.Describe(item))
			}
			list[i] = item.Value
		}
		*w = list
		return nil
	}
	return fmt.Errorf("want a string or a list of strings, got %s", yamlstruct.Describe(n))
}

// Parse reads a suite from its YAML text. Unknown keys, a value of the
// wrong kind, a regex that does not compile, a JSON Schema that does
// not, a case without a name or task, and names used twice are problems
// with their line; Parse returns the first.
func Parse(file string, data []byte) (*Suite, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, Problem{File: file, Line: yamlLine(err), Message: yamlMessage(err)}
	}
	var raw rawSuite
	if len(root.Content) > 0 {
		if probs := yamlstruct.Decode(root.Content[0], &raw, yamlstruct.Options{Lenient: true}); len(probs) > 0 {
			return nil, Problem{File: file, Line: probs[0].Line, Message: probs[0].Message}
		}
	}
	s := &Suite{Name: SuiteName(file), File: file, Agent: raw.Agent, Workflow: raw.Workflow.Value,
		Model: raw.Model, Judge: raw.Judge, Description: raw.Description}
	switch {
	case raw.Agent == "" && s.Workflow == "":
		return nil, Problem{File: file, Line: 1, Message: "a suite names the agent: or the workflow: its cases run"}
	case raw.Agent != "" && s.Workflow != "":
		return nil, Problem{File: file, Line: raw.Workflow.Line, Message: "a suite runs an agent: or a workflow:, not both"}
	case len(raw.Cases.Value) == 0:
		return nil, Problem{File: file, Line: raw.Cases.Line, Message: "a suite needs cases:"}
	}
	seen := map[string]int{}
	for i, rc := range raw.Cases.Value {
		c, err := parseCase(casePlace{file: file, i: i, line: rc.Line}, rc.Value, s.Kind())
		if err != nil {
			return nil, err
		}
		if first, dup := seen[c.Name]; dup {
			return nil, Problem{File: file, Line: c.Line, Message: fmt.Sprintf("case %q is named twice (first on line %d)", c.Name, first)}
		}
		seen[c.Name] = c.Line
		s.Cases = append(s.Cases, c)
	}
	return s, nil
}

// parseCase checks the case at p of a suite whose cases run kind (agent
// or workflow) and compiles what it expects; a problem carries the line
// of the key at fault.
func parseCase(p casePlace, rc rawCase, kind string) (Case, error) {
	c := Case{Name: rc.Name, Line: p.line, Task: rc.Task}
	switch {
	case rc.Name == "":
		return Case{}, p.bad(p.line, "case %d has no name:", p.i+1)
	case kind == "agent" && rc.Task == "":
		return Case{}, p.bad(p.line, "case %q has no task:", rc.Name)
	}
	if n := rc.Inputs.Value; n != nil {
		if n.Kind != yaml.MappingNode {
			return Case{}, p.bad(rc.Inputs.Line, "case %q inputs must be a mapping, got %s", rc.Name, yamlstruct.Describe(n))
		}
		if err := n.Decode(&c.Inputs); err != nil {
			return Case{}, p.bad(rc.Inputs.Line, "case %q inputs: %s", rc.Name, strings.TrimPrefix(err.Error(), "yaml: "))
		}
	}
	if n := rc.Script.Value; n != nil {
		text, err := yaml.Marshal(n)
		if err == nil {
			c.Script, err = script.Parse(text)
		}
		if err != nil {
			return Case{}, p.bad(rc.Script.Line, "case %q script: %v", rc.Name, err)
		}
	}
	var err error
	c.Expect, err = p.expect(rc.Name, rc.Expect)
	if err != nil {
		return Case{}, err
	}
	return c, nil
}

// casePlace is where a case stands in its suite file, for its problems.
type casePlace struct {
	file string
	i    int // the case's index in cases:
	line int // the case's own line
}

// bad is a problem of the case on line l.
func (p casePlace) bad(l int, format string, a ...any) error {
	return Problem{File: p.file, Line: l, Message: fmt.Sprintf(format, a...)}
}

// expect checks the expect: of case name and compiles its regex, schema
// and duration.
func (p casePlace) expect(name string, e rawExpect) (Expect, error) {
	x := Expect{OutputContains: e.OutputContains, MaxTokens: e.MaxTokens, MaxCost: e.MaxCost,
		NoDenied: e.NoDenied, Rubric: e.Rubric, Status: e.Status.Value}
	if e.OutputRegex.Value != "" {
		re, err := regexp.Compile(e.OutputRegex.Value)
		if err != nil {
			return Expect{}, p.bad(e.OutputRegex.Line, "case %q output_regex: %v", name, err)
		}
		x.OutputRegex = re
	}
	if e.OutputSchema.Value != nil {
		sch, err := workflow.CompileSchema("mem:///"+url(name)+".json", e.OutputSchema.Value)
		if err != nil {
			return Expect{}, p.bad(e.OutputSchema.Line, "case %q output_schema: %s", name, firstLine(err.Error()))
		}
		x.OutputSchema = sch
	}
	if e.MaxTime.Value != "" {
		d, err := time.ParseDuration(e.MaxTime.Value)
		if err != nil || d <= 0 {
			return Expect{}, p.bad(e.MaxTime.Line, "case %q max_time: %q is not a duration such as 30s", name, e.MaxTime.Value)
		}
		x.MaxTime = d
	}
	if x.Status != "" && !slices.Contains([]string{"ok", "error", "timeout", "cancelled", "limit", "partial"}, x.Status) {
		return Expect{}, p.bad(e.Status.Line, "case %q status: %q is not a run status (ok, error, timeout, cancelled, limit, partial)", name, x.Status)
	}
	if e.Trajectory.Set() {
		tr, err := p.trajectory(name, e.Trajectory)
		if err != nil {
			return Expect{}, err
		}
		x.Trajectory = tr
	}
	return x, nil
}

// trajectory checks the expected trajectory of case name: its order (exact
// when not given), a min_score between 0 and 1 (1 when not given), and at
// least agents: or tools:.
func (p casePlace) trajectory(name string, raw at[rawTrajectory]) (*Trajectory, error) {
	t, line := raw.Value, raw.Line
	tr := &Trajectory{Agents: t.Agents, Tools: t.Tools, Order: t.Order, MinScore: 1}
	if tr.Order == "" {
		tr.Order = OrderExact
	}
	if !slices.Contains([]string{OrderExact, OrderInOrder, OrderAny}, tr.Order) {
		return nil, p.bad(line, "case %q trajectory order: %q is not exact, in_order or any", name, t.Order)
	}
	if t.MinScore.Set() {
		if t.MinScore.Value < 0 || t.MinScore.Value > 1 {
			return nil, p.bad(line, "case %q trajectory min_score must be between 0 and 1", name)
		}
		tr.MinScore = t.MinScore.Value
	}
	if t.Agents == nil && t.Tools == nil {
		return nil, p.bad(line, "case %q trajectory names no agents: or tools:", name)
	}
	return tr, nil
}

var (
	yamlLineRE       = regexp.MustCompile(`line (\d+)`)
	yamlLinePrefixRE = regexp.MustCompile(`line \d+: ?`)
)

func yamlLine(err error) int {
	var n int
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		fmt.Sscan(m[1], &n)
	}
	return n
}

// yamlMessage is yaml.v3's syntax error without its "yaml: " and line
// prefix, which Problem says itself.
func yamlMessage(err error) string {
	return strings.TrimSpace(yamlLinePrefixRE.ReplaceAllString(strings.TrimPrefix(err.Error(), "yaml: "), ""))
}

func url(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, name)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
