package workflows

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/web/diagram"
)

// Edge kinds of the step diagram, CSS classes of its lines: data flowing to
// a step that waits for it, a conditional's routes, and a loop's feedback.
const (
	edgeFlow     = "flow"
	edgeRoute    = "route"
	edgeFeedback = "feedback"
)

// stepGraph is a workflow's steps as boxes and the dependencies between
// them as arrows, top to bottom as the text graph reads. A conditional's
// routes to an agent rather than a step get a box of their own.
func stepGraph(w *workflow.Workflow) diagram.Graph {
	g := diagram.Graph{ID: "workflow-diagram-svg", Title: "Step graph of " + w.Name, TopDown: true}
	steps := map[string]bool{}
	for _, s := range w.Steps {
		steps[s.ID] = true
	}
	for _, s := range w.Steps {
		g.Nodes = append(g.Nodes, diagram.Node{ID: s.ID, Label: s.ID + " · " + stepSummary(w, s), Title: stepTitle(w, s), Class: "step " + s.Type})
		gate := w.Gate(s)
		for _, d := range w.Deps(s) {
			if gate != nil && d == gate.ID {
				continue // the gate's labelled route arrow says it
			}
			g.Edges = append(g.Edges, diagram.Edge{From: d, To: s.ID, Kind: edgeFlow})
		}
		if s.Type == workflow.TypeLoop {
			g.Edges = append(g.Edges, diagram.Edge{From: s.ID, To: s.ID, Kind: edgeFeedback, Label: "feedback",
				Title: fmt.Sprintf("%s checks each output; at most %d iterations", s.Loop.Validator, s.Loop.MaxIterations)})
		}
		if s.Condition != nil {
			g = routes(g, s, steps)
		}
	}
	return g
}

// routes adds a conditional's true and false arrows; a target that is no
// step is an agent the gate runs, drawn once.
func routes(g diagram.Graph, s *workflow.Step, steps map[string]bool) diagram.Graph {
	for _, r := range []struct{ to, label string }{{s.Condition.True, "true"}, {s.Condition.False, "false"}} {
		if r.to == "" {
			continue
		}
		to := r.to
		if !steps[to] {
			to = s.ID + "→" + r.to
			g.Nodes = append(g.Nodes, diagram.Node{ID: to, Label: "agent " + r.to, Title: "run when " + s.Condition.Eval + " is " + r.label, Class: "route-agent"})
		}
		g.Edges = append(g.Edges, diagram.Edge{From: s.ID, To: to, Kind: edgeRoute, Label: r.label, Title: s.Condition.Eval + " is " + r.label})
	}
	return g
}

// stepSummary is the short line in a step's box: who does the work.
func stepSummary(w *workflow.Workflow, s *workflow.Step) string {
	switch s.Type {
	case workflow.TypeParallel:
		return fmt.Sprintf("%d in parallel", len(s.Parallel))
	case workflow.TypeConditional:
		return "gate"
	case workflow.TypeLoop:
		return s.Loop.Agent + " ⟲ " + s.Loop.Validator
	case workflow.TypeMap:
		return s.Map.Agent + " × each"
	}
	return s.Agent
}

// stepTitle is the box's tooltip: everything the summary had to leave out.
func stepTitle(w *workflow.Workflow, s *workflow.Step) string {
	switch s.Type {
	case workflow.TypeParallel:
		agents := make([]string, len(s.Parallel))
		for i, b := range s.Parallel {
			agents[i] = b.Agent
		}
		return fmt.Sprintf("parallel (wait %s): %s", s.Wait, strings.Join(agents, ", "))
	case workflow.TypeConditional:
		return "conditional: " + s.Condition.Eval
	case workflow.TypeMap:
		t := fmt.Sprintf("map: %s over each element of %s", s.Map.Agent, s.Map.Over.Source)
		if s.Map.Reduce != "" {
			t += ", then " + s.Map.Reduce
		}
		return t
	case workflow.TypeLoop:
		return fmt.Sprintf("loop: %s, checked by %s, at most %d iterations", s.Loop.Agent, s.Loop.Validator, s.Loop.MaxIterations)
	}
	return s.Type + ": " + s.Agent
}

// drawSteps lays the step graph out, or says why the page shows the text
// graph alone (too large, or dot failed: logged, never an error page).
func drawSteps(ctx context.Context, w *workflow.Workflow, log *slog.Logger) (*diagram.Drawing, string) {
	d, err := diagram.Layout(ctx, stepGraph(w))
	switch {
	case err == nil:
		return &d, ""
	case err == diagram.ErrTooLarge:
		return nil, "The workflow has too many steps to draw readably; the text graph below has them all."
	default:
		log.Error("draw workflow steps", "workflow", w.Name, "err", err)
		return nil, "The step graph could not be drawn; the text graph below has it."
	}
}
