package workflow

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var stepTypes = []string{TypeSequential, TypeParallel, TypeConditional, TypeLoop, TypeMap}
var formats = []string{"json", "text", "markdown"}

type validationKeys struct {
	Schema at[any]  `yaml:"schema"`
	Rules  []string `yaml:"rules"`
}

type stepKeys struct {
	ID        string            `yaml:"id"`
	Agent     at[string]        `yaml:"agent"`
	Type      at[string]        `yaml:"type"`
	Input     at[string]        `yaml:"input"`
	Parallel  []at[branchKeys]  `yaml:"parallel"`
	Wait      at[string]        `yaml:"wait"` // all, any or a number
	Condition at[conditionKeys] `yaml:"condition"`
	Loop      at[loopKeys]      `yaml:"loop"`
	Map       at[mapKeys]       `yaml:"map"`
	Timeout   time.Duration     `yaml:"timeout"`
	Output    outputKeys        `yaml:"output"`
}

type branchKeys struct {
	Agent     string     `yaml:"agent"`
	Input     at[string] `yaml:"input"`
	OutputKey string     `yaml:"output_key"`
}

type conditionKeys struct {
	Eval  at[string] `yaml:"eval"`
	True  string     `yaml:"true"`
	False string     `yaml:"false"`
}

type loopKeys struct {
	Agent         string     `yaml:"agent"`
	Validator     string     `yaml:"validator"`
	MaxIterations at[int]    `yaml:"max_iterations"`
	FeedbackPath  at[string] `yaml:"feedback_path"`
}

type mapKeys struct {
	Over        at[string] `yaml:"over"`
	Agent       string     `yaml:"agent"`
	Reduce      string     `yaml:"reduce"`
	Concurrency at[int]    `yaml:"concurrency"`
}

type outputKeys struct {
	StoreAs string     `yaml:"store_as"`
	Format  at[string] `yaml:"format"`
}

func (l *loader) validation(a *Agent, v validationKeys) {
	a.RuleTexts = v.Rules
	if v.Schema.Set() {
		a.Schema = l.schema(a.ID, v.Schema)
	}
}

// schema compiles a JSON Schema written in YAML, once, at load.
func (l *loader) schema(id string, v at[any]) *jsonschema.Schema {
	sch, err := CompileSchema("mem:///"+id+".json", v.Value)
	if err != nil {
		l.errf(v.Line, "agent %s schema: %s", id, firstLine(err.Error()))
		return nil
	}
	return sch
}

// CompileSchema compiles the JSON Schema v (decoded from YAML or JSON)
// under url, for workflows' output schemas and eval cases' output_schema.
func CompileSchema(url string, v any) (*jsonschema.Schema, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

func (l *loader) steps(items []at[stepKeys]) {
	seen := map[string]bool{}
	for i, item := range items {
		s := l.step(item.Value, item.Line)
		s.index, s.gate = i, -1
		l.unique(seen, s.ID, item.Line, "a step needs an id", "step id %q is used twice")
		l.wf.Steps = append(l.wf.Steps, s)
	}
}

// tmpl compiles a template; a value the file does not give is nil.
func (l *loader) tmpl(v at[string], what string) *Template {
	if !v.Set() {
		return nil
	}
	t, err := parseTemplate(v.Value)
	if err != nil {
		l.errf(v.Line, "%s: %v", what, err)
		return nil
	}
	t.Line = v.Line
	return t
}

func (l *loader) step(k stepKeys, line int) *Step {
	s := &Step{ID: k.ID, Agent: k.Agent.Value, agentLine: k.Agent.Line, Type: k.Type.Value, Line: line, Wait: "all",
		Timeout: k.Timeout, Output: Output{StoreAs: k.Output.StoreAs, Format: k.Output.Format.Value}}
	l.oneOf(k.Type, "step type", stepTypes)
	l.oneOf(k.Output.Format, "output format", formats)
	s.AllPrior = strings.TrimSpace(k.Input.Value) == AllPriorContext
	s.Input = l.tmpl(k.Input, "input")
	for _, b := range k.Parallel {
		s.Parallel = append(s.Parallel, l.branch(b))
	}
	if k.Wait.Set() {
		l.wait(s, k.Wait)
	}
	if k.Condition.Set() {
		s.Condition = l.condition(k.Condition)
	}
	if k.Loop.Set() {
		s.Loop = l.loop(k.Loop)
	}
	if k.Map.Set() {
		s.Map = l.mapping(k.Map)
	}
	if s.Type == "" {
		s.Type = inferType(s)
	}
	return s
}

// wait reads how many of a parallel step's agents it waits for.
func (l *loader) wait(s *Step, w at[string]) {
	s.Wait = w.Value
	if s.Wait != "all" && s.Wait != "any" {
		n, err := strconv.Atoi(s.Wait)
		if err != nil || n < 1 {
			l.errf(w.Line, "wait must be all, any or a number of agents, not %q", s.Wait)
		}
		s.WaitN = n
	}
}

// inferType names the type of a step that leaves it out, from its body.
func inferType(s *Step) string {
	switch {
	case s.Parallel != nil:
		return TypeParallel
	case s.Condition != nil:
		return TypeConditional
	case s.Loop != nil:
		return TypeLoop
	case s.Map != nil:
		return TypeMap
	}
	return TypeSequential
}

func (l *loader) branch(b at[branchKeys]) Branch {
	out := Branch{Agent: b.Value.Agent, Input: l.tmpl(b.Value.Input, "input"), OutputKey: b.Value.OutputKey, Line: b.Line}
	if out.OutputKey == "" {
		out.OutputKey = out.Agent
	}
	return out
}

func (l *loader) condition(k at[conditionKeys]) *Condition {
	c := &Condition{Eval: k.Value.Eval.Value, True: k.Value.True, False: k.Value.False, Line: k.Line}
	if k.Value.Eval.Set() {
		c.Line = k.Value.Eval.Line
	}
	if c.Eval == "" {
		l.errf(k.Line, "condition.eval is required")
	}
	return c
}

func (l *loader) loop(k at[loopKeys]) *Loop {
	lp := &Loop{Agent: k.Value.Agent, Validator: k.Value.Validator, MaxIterations: 3,
		FeedbackPath: l.tmpl(k.Value.FeedbackPath, "loop.feedback_path")}
	if n := k.Value.MaxIterations; n.Set() {
		lp.MaxIterations = n.Value
		if n.Value < 1 {
			l.errf(n.Line, "loop.max_iterations must be at least 1")
		}
	}
	if lp.Agent == "" || lp.Validator == "" {
		l.errf(k.Line, "a loop needs agent and validator")
	}
	return lp
}

func (l *loader) mapping(k at[mapKeys]) *Map {
	m := &Map{Over: l.tmpl(k.Value.Over, "map.over"), Agent: k.Value.Agent, Reduce: k.Value.Reduce, Concurrency: DefaultMapConcurrency}
	if n := k.Value.Concurrency; n.Set() {
		m.Concurrency = n.Value
		if n.Value < 1 {
			l.errf(n.Line, "map.concurrency must be at least 1")
		}
	}
	if m.Over == nil || m.Agent == "" {
		l.errf(k.Line, "a map needs over and agent")
	}
	return m
}
