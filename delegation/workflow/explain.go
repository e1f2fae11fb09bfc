package workflow

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentry/agentry/delegation/control"
)

// label is how an agent appears in a diagram: its name, else its ID.
func (w *Workflow) label(id string) string {
	if a := w.Agents[id]; a != nil && a.Name != "" {
		return a.Name
	}
	return id
}

// Explain describes each step in words, draws the graph in the seed's
// arrow style and lists the agents and their roles.
func Explain(w *Workflow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s", w.Name)
	if w.Version != "" {
		fmt.Fprintf(&b, " (v%s)", w.Version)
	}
	b.WriteString("\n\n")
	if w.Description != "" {
		b.WriteString(w.Description + "\n\n")
	}
	if w.Timeout > 0 {
		fmt.Fprintf(&b, "Global timeout: %s\n\n", w.Timeout)
	}
	if len(w.Inputs) > 0 {
		b.WriteString("## Inputs\n\n")
		for _, in := range w.Inputs {
			req := "optional"
			if in.Required {
				req = "required"
			}
			fmt.Fprintf(&b, "- %s (%s, %s): %s\n", in.Name, in.Type, req, in.Description)
		}
		b.WriteString("\n")
	}
	b.WriteString("## Steps\n\n")
	for i, s := range w.Steps {
		fmt.Fprintf(&b, "%d. %s — %s\n", i+1, s.ID, w.describe(s))
	}
	b.WriteString("\n## Graph\n\n")
	b.WriteString(Graph(w))
	b.WriteString("\n## Agents\n\n")
	for _, id := range w.AgentOrder {
		a := w.Agents[id]
		fmt.Fprintf(&b, "- %s (%s): %s", id, w.label(id), a.Role)
		if len(a.Tools) > 0 {
			fmt.Fprintf(&b, "; tools %s", strings.Join(a.Tools, ", "))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func (w *Workflow) describe(s *Step) string {
	var d string
	switch s.Type {
	case TypeParallel:
		names := make([]string, len(s.Parallel))
		for i, br := range s.Parallel {
			names[i] = fmt.Sprintf("%s (as %s)", w.label(br.Agent), br.OutputKey)
		}
		d = fmt.Sprintf("runs %s in parallel and waits for %s", strings.Join(names, ", "), s.Wait)
	case TypeConditional:
		d = fmt.Sprintf("evaluates %s; if true → %s, else → %s", s.Condition.Eval, orNothing(s.Condition.True), orNothing(s.Condition.False))
	case TypeLoop:
		d = fmt.Sprintf("%s produces, %s validates; repeats with feedback until passed, at most %d times",
			w.label(s.Loop.Agent), w.label(s.Loop.Validator), s.Loop.MaxIterations)
	case TypeMap:
		d = fmt.Sprintf("runs %s on each element of %s, %d at a time", w.label(s.Map.Agent), s.Map.Over.Source, s.Map.Concurrency)
		if s.Map.Reduce != "" {
			d += ", then " + w.label(s.Map.Reduce) + " combines the results"
		}
	default:
		d = w.label(s.Agent) + " runs"
		if s.AllPrior {
			d += " on all prior context"
		} else if s.Input != nil {
			d += " on " + s.Input.Source
		}
	}
	if deps := w.Deps(s); len(deps) > 0 {
		d += "; after " + strings.Join(deps, ", ")
	}
	if g := w.Gate(s); g != nil {
		d += "; only when " + g.ID + " routes here"
	}
	if s.Output.StoreAs != "" || s.Output.Format != "" {
		d += fmt.Sprintf("; output %s as %s", orText(s.Output.Format), orNothing(s.Output.StoreAs))
	}
	return d
}

func orNothing(s string) string {
	if s == "" {
		return "(nothing)"
	}
	return s
}

// levels groups steps by their depth in the graph.
func levels(w *Workflow) [][]*Step {
	depth := make([]int, len(w.Steps))
	var out [][]*Step
	for i, s := range w.Steps {
		for _, d := range s.deps {
			depth[i] = max(depth[i], depth[d]+1)
		}
		for len(out) <= depth[i] {
			out = append(out, nil)
		}
		out[depth[i]] = append(out[depth[i]], s)
	}
	return out
}

// Graph draws the steps in the seed's text style: a chain of boxes, with
// fan-outs (parallel branches, steps at the same level, conditional
// routes) drawn as /--> ... \--> blocks and loops with their feedback arrow.
func Graph(w *Workflow) string {
	var b strings.Builder
	n := 0
	for li, lvl := range levels(w) {
		var rows []string
		for _, s := range lvl {
			n++
			rows = append(rows, w.boxes(s, n)...)
		}
		arrow := ""
		if li > 0 {
			arrow = "--> "
		}
		if len(rows) == 1 {
			fmt.Fprintf(&b, "%s%s\n", arrow, rows[0])
			continue
		}
		for i, r := range rows {
			prefix := "|--> "
			switch i {
			case 0:
				prefix = "/--> "
			case len(rows) - 1:
				prefix = "\\--> "
			}
			fmt.Fprintf(&b, "%s%s\n", prefix, r)
		}
	}
	return b.String()
}

// boxes are the rows one step draws.
func (w *Workflow) boxes(s *Step, n int) []string {
	switch s.Type {
	case TypeParallel:
		rows := make([]string, len(s.Parallel))
		for i, br := range s.Parallel {
			rows[i] = fmt.Sprintf("[%d%c. %s]", n, 'a'+rune(i%26), w.label(br.Agent))
		}
		rows[len(rows)-1] += fmt.Sprintf("  (wait %s)", s.Wait)
		return rows
	case TypeConditional:
		return []string{fmt.Sprintf("[%d. %s] -- GATE (%s) --true--> [%s] --false--> [%s]", n, s.ID, s.Condition.Eval,
			w.label(orNothing(s.Condition.True)), w.label(orNothing(s.Condition.False)))}
	case TypeLoop:
		return []string{fmt.Sprintf("[%d. %s] --> [%s] --PASS--> done; --FAIL-- feedback --> [%d. %s] (max %d iterations)",
			n, w.label(s.Loop.Agent), w.label(s.Loop.Validator), n, w.label(s.Loop.Agent), s.Loop.MaxIterations)}
	case TypeMap:
		r := fmt.Sprintf("[%d. %s × each element of %s]", n, w.label(s.Map.Agent), s.Map.Over.Source)
		if s.Map.Reduce != "" {
			r += fmt.Sprintf(" --> [%s]", w.label(s.Map.Reduce))
		}
		return []string{r}
	}
	return []string{fmt.Sprintf("[%d. %s]", n, w.label(s.Agent))}
}

// Plan is the dry run: order, agents, resolved templates where known, and
// the expected outputs. No agent runs.
func Plan(w *Workflow, inputs map[string]any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Dry run: %s\n\n## Inputs\n\n", w.Name)
	for _, k := range slices.Sorted(maps.Keys(inputs)) {
		fmt.Fprintf(&b, "- %s = %s\n", k, Text(inputs[k]))
	}
	env := map[string]any{"inputs": inputs, "steps": map[string]any{}}
	b.WriteString("\n## Execution plan\n\n")
	for li, lvl := range levels(w) {
		ids := make([]string, len(lvl))
		for i, s := range lvl {
			ids[i] = s.ID
		}
		fmt.Fprintf(&b, "### Stage %d: %s\n\n", li+1, strings.Join(ids, ", "))
		for _, s := range lvl {
			fmt.Fprintf(&b, "- %s (%s): %s\n", s.ID, s.Type, w.describe(s))
			if s.Input != nil && !s.AllPrior {
				fmt.Fprintf(&b, "  input: %s\n", planText(s.Input, env))
			}
			for _, br := range s.Parallel {
				if br.Input != nil {
					fmt.Fprintf(&b, "  %s input: %s\n", br.OutputKey, planText(br.Input, env))
				}
			}
			key := s.Output.StoreAs
			if key == "" {
				key = s.ID
			}
			fmt.Fprintf(&b, "  expected output: %s (%s)\n", key, orText(s.Output.Format))
		}
		b.WriteString("\n")
	}
	b.WriteString("No agent was run and nothing was recorded.\n")
	return b.String()
}

// planText resolves what is known before the run (inputs) and leaves step
// references as written.
func planText(t *Template, env map[string]any) string {
	if len(t.refs.steps) > 0 || len(t.refs.names) > 0 {
		return t.Source + " (known when the run gets there)"
	}
	s, _ := t.Render(env)
	return control.OneLine(s, 200)
}

// WriterAgent is the agent name `workflow new` asks the model as (the
// script model's key; the demo model recognises it).
const WriterAgent = "workflow-writer"

// WriterPrompt is the system prompt of `workflow new`.
const WriterPrompt = `You write agentry workflows: YAML with workflow {name, description, version, timeout}, inputs [{name, type, required, description}], agents {id: {name, role, prompt, tools}}, and steps [{id, agent, type: sequential|parallel|conditional|loop|map, input, output: {store_as, format}}]. Prompts use {{inputs.NAME}} and {{steps.ID.output}} of earlier steps only. Answer with the YAML alone.`
