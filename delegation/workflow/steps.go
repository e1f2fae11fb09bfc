package workflow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

var stepTypes = []string{TypeSequential, TypeParallel, TypeConditional, TypeLoop, TypeMap}
var formats = []string{"json", "text", "markdown"}

func (l *loader) validation(a *Agent, n *yaml.Node) {
	for _, kv := range pairs(n) {
		switch kv.key {
		case "schema":
			a.Schema = l.schema(a.ID, kv.val)
		case "rules":
			if err := kv.val.Decode(&a.RuleTexts); err != nil {
				l.errf(kv.line, "validation.rules must be a list of sentences")
			}
		default:
			l.warnf(kv.line, "unknown key validation.%s (ignored)", kv.key)
		}
	}
}

// schema compiles a JSON Schema written in YAML, once, at load.
func (l *loader) schema(id string, n *yaml.Node) *jsonschema.Schema {
	var v any
	if err := n.Decode(&v); err != nil {
		l.errf(n.Line, "agent %s schema: %v", id, err)
		return nil
	}
	sch, err := CompileSchema("mem:///"+id+".json", v)
	if err != nil {
		l.errf(n.Line, "agent %s schema: %s", id, firstLine(err.Error()))
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

func (l *loader) steps(n *yaml.Node) {
	if n.Kind != yaml.SequenceNode {
		l.errf(n.Line, "steps must be a list")
		return
	}
	seen := map[string]bool{}
	for i, item := range n.Content {
		s := l.step(item)
		s.index, s.gate = i, -1
		switch {
		case s.ID == "":
			l.errf(item.Line, "a step needs an id")
		case seen[s.ID]:
			l.errf(item.Line, "step id %q is used twice", s.ID)
		}
		seen[s.ID] = true
		l.wf.Steps = append(l.wf.Steps, s)
	}
}

func (l *loader) tmpl(n *yaml.Node, what string) *Template {
	t, err := parseTemplate(l.str(n, what))
	if err != nil {
		l.errf(n.Line, "%s: %v", what, err)
		return nil
	}
	t.Line = n.Line
	return t
}

func (l *loader) step(n *yaml.Node) *Step {
	s := &Step{Line: n.Line, Wait: "all"}
	for _, kv := range pairs(n) {
		switch kv.key {
		case "id":
			s.ID = l.str(kv.val, "id")
		case "agent":
			s.Agent, s.agentLine = l.str(kv.val, "agent"), kv.line
		case "type":
			s.Type = l.str(kv.val, "type")
			if !slices.Contains(stepTypes, s.Type) {
				l.errf(kv.line, "step type %q is not one of %s", s.Type, strings.Join(stepTypes, ", "))
			}
		case "input":
			if strings.TrimSpace(kv.val.Value) == AllPriorContext {
				s.AllPrior = true
			}
			s.Input = l.tmpl(kv.val, "input")
		case "parallel":
			for _, b := range kv.val.Content {
				s.Parallel = append(s.Parallel, l.branch(b))
			}
		case "wait":
			s.Wait = l.str(kv.val, "wait")
			if s.Wait != "all" && s.Wait != "any" {
				n, err := strconv.Atoi(s.Wait)
				if err != nil || n < 1 {
					l.errf(kv.line, "wait must be all, any or a number of agents, not %q", s.Wait)
				}
				s.WaitN = n
			}
		case "condition":
			s.Condition = l.condition(kv.val)
		case "loop":
			s.Loop = l.loop(kv.val)
		case "map":
			s.Map = l.mapping(kv.val)
		case "timeout":
			s.Timeout = l.duration(kv.val, "step timeout")
		case "output":
			for _, o := range pairs(kv.val) {
				switch o.key {
				case "store_as":
					s.Output.StoreAs = l.str(o.val, "store_as")
				case "format":
					s.Output.Format = l.str(o.val, "format")
					if !slices.Contains(formats, s.Output.Format) {
						l.errf(o.line, "output format %q is not one of json, text, markdown", s.Output.Format)
					}
				default:
					l.warnf(o.line, "unknown key output.%s (ignored)", o.key)
				}
			}
		default:
			l.warnf(kv.line, "unknown step key %q (ignored)", kv.key)
		}
	}
	if s.Type == "" {
		s.Type = inferType(s)
	}
	return s
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

func (l *loader) branch(n *yaml.Node) Branch {
	b := Branch{Line: n.Line}
	for _, kv := range pairs(n) {
		switch kv.key {
		case "agent":
			b.Agent = l.str(kv.val, "agent")
		case "input":
			b.Input = l.tmpl(kv.val, "input")
		case "output_key":
			b.OutputKey = l.str(kv.val, "output_key")
		default:
			l.warnf(kv.line, "unknown key %q in a parallel entry (ignored)", kv.key)
		}
	}
	if b.OutputKey == "" {
		b.OutputKey = b.Agent
	}
	return b
}

func (l *loader) condition(n *yaml.Node) *Condition {
	c := &Condition{Line: n.Line}
	for _, kv := range pairs(n) {
		switch kv.key {
		case "eval":
			c.Eval = l.str(kv.val, "eval")
			c.Line = kv.val.Line
		case "true":
			c.True = l.str(kv.val, "true")
		case "false":
			c.False = l.str(kv.val, "false")
		default:
			l.warnf(kv.line, "unknown key condition.%s (ignored)", kv.key)
		}
	}
	if c.Eval == "" {
		l.errf(n.Line, "condition.eval is required")
	}
	return c
}

func (l *loader) loop(n *yaml.Node) *Loop {
	lp := &Loop{MaxIterations: 3}
	for _, kv := range pairs(n) {
		switch kv.key {
		case "agent":
			lp.Agent = l.str(kv.val, "loop.agent")
		case "validator":
			lp.Validator = l.str(kv.val, "loop.validator")
		case "max_iterations":
			lp.MaxIterations = l.integer(kv.val, "loop.max_iterations")
			if lp.MaxIterations < 1 {
				l.errf(kv.line, "loop.max_iterations must be at least 1")
			}
		case "feedback_path":
			lp.FeedbackPath = l.tmpl(kv.val, "loop.feedback_path")
		default:
			l.warnf(kv.line, "unknown key loop.%s (ignored)", kv.key)
		}
	}
	if lp.Agent == "" || lp.Validator == "" {
		l.errf(n.Line, "a loop needs agent and validator")
	}
	return lp
}

func (l *loader) mapping(n *yaml.Node) *Map {
	m := &Map{Concurrency: DefaultMapConcurrency}
	for _, kv := range pairs(n) {
		switch kv.key {
		case "over":
			m.Over = l.tmpl(kv.val, "map.over")
		case "agent":
			m.Agent = l.str(kv.val, "map.agent")
		case "reduce":
			m.Reduce = l.str(kv.val, "map.reduce")
		case "concurrency":
			m.Concurrency = l.integer(kv.val, "map.concurrency")
			if m.Concurrency < 1 {
				l.errf(kv.line, "map.concurrency must be at least 1")
			}
		default:
			l.warnf(kv.line, "unknown key map.%s (ignored)", kv.key)
		}
	}
	if m.Over == nil || m.Agent == "" {
		l.errf(n.Line, "a map needs over and agent")
	}
	return m
}

// errorf formats like fmt.Errorf but returns a plain string.
func errorf(format string, a ...any) string { return fmt.Sprintf(format, a...) }
