package a2a

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"

	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/web/core"
)

// workflowTarget is workflow wf's endpoint: its card, with one skill (the
// workflow), and a task per message whose data parts are its inputs.
func (s *Server) workflowTarget(r *http.Request, wf *workflow.Workflow) *target {
	modes := []string{"application/json"}
	if len(wf.Inputs) == 1 {
		modes = append(modes, "text/plain")
	}
	skill := a2a.AgentSkill{ID: wf.Name, Name: wf.Name, Description: wf.Description, Tags: []string{"agentry", "workflow"},
		InputModes: modes, Examples: []string{inputsExample(wf)}}
	name := wf.Name
	return &target{card: s.card(r, core.WorkflowPrefix+wf.Name, wf.Name, wf.Description, skill), exec: &executor{s: s,
		start: func(rc *a2asrv.RequestContext) (core.Execution, func(core.Outcome) ending, error) {
			wf, ok := s.cfg.ExposedWorkflow(name) // as it is now
			if !ok {
				return nil, nil, fmt.Errorf("workflow %s is no longer exposed", name)
			}
			given, err := workflowInputs(wf, rc.Message)
			if err != nil {
				return nil, nil, err
			}
			tp, _ := rc.Message.Metadata[metaTraceParent].(string)
			ex, err := s.cfg.StartWorkflow(wf, given, core.Caller{Protocol: "a2a"}, tp)
			return ex, func(out core.Outcome) ending { return workflowEnding(wf, ex, out) }, err
		}}}
}

// workflowInputs are the inputs a message gives wf: its data parts'
// fields, or, for a workflow of one input, its text (Door.StartWorkflow
// resolves them).
func workflowInputs(wf *workflow.Workflow, m *a2a.Message) (map[string]any, error) {
	given := map[string]any{}
	var texts []string
	for _, p := range m.Parts {
		switch p := p.(type) {
		case a2a.DataPart:
			maps.Copy(given, p.Data)
		case a2a.TextPart:
			if t := strings.TrimSpace(p.Text); t != "" {
				texts = append(texts, t)
			}
		}
	}
	if len(given) == 0 && len(texts) > 0 {
		if len(wf.Inputs) != 1 {
			return nil, errors.New("workflow " + wf.Name + " takes its inputs as a data part: " + inputsExample(wf))
		}
		given[wf.Inputs[0].Name] = strings.Join(texts, "\n\n")
	}
	return given, nil
}

// inputsExample shows wf's inputs as the data part that gives them.
func inputsExample(wf *workflow.Workflow) string {
	var fields []string
	for _, in := range wf.Inputs {
		fields = append(fields, fmt.Sprintf("%q: <%s>", in.Name, in.Type))
	}
	return "{" + strings.Join(fields, ", ") + "}"
}

// workflowEnding is a workflow run's ending: its final result (its report
// when it has none) and core.WorkflowOutcome; ok and partial complete.
func workflowEnding(wf *workflow.Workflow, ex core.Execution, out core.Outcome) ending {
	wo := core.WorkflowOutcomeOf(wf, ex, out)
	e := ending{text: wo.Answer(), data: wo, status: trace.StatusError, why: core.Ended(wo.RunID, wo.Status, wo.Error)}
	switch {
	case wo.OK():
		e.status = trace.StatusOK
	case wo.Status == workflow.StatusCancelled:
		e.status = trace.StatusCancelled
	}
	return e
}
