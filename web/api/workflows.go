package api

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/web/core"
)

// Workflow is a workflow file as the API lists it: enough to start it.
type Workflow struct {
	Name        string          `json:"name"`
	File        string          `json:"file"`
	Description string          `json:"description,omitempty"`
	Inputs      []WorkflowInput `json:"inputs"`
	Problems    []string        `json:"problems,omitempty" doc:"Its problems; a broken file that never loaded cannot run"`
}

// WorkflowInput is one declared input.
type WorkflowInput struct {
	Name        string `json:"name"`
	Type        string `json:"type" enum:"string,number,boolean,json,file_path"`
	Required    bool   `json:"required"`
	Default     any    `json:"default,omitempty"`
	Description string `json:"description,omitempty"`
}

type workflowsOut struct {
	Body struct {
		Workflows []Workflow `json:"workflows"`
	}
}

type startWorkflowIn struct {
	Name        string `path:"name" doc:"The workflow's name"`
	TraceParent string `header:"traceparent" doc:"A W3C traceparent: the run joins the caller's trace"`
	Body        struct {
		Inputs map[string]any `json:"inputs,omitempty" doc:"Values of its declared inputs, by name"`
		Model  string         `json:"model,omitempty" doc:"A model for every agent of the run; default each agent's own"`
		Wait   bool           `json:"wait,omitempty" doc:"Answer when the run has ended"`
	}
}

func (a *API) workflows(api huma.API) {
	huma.Register(api, op("listWorkflows", http.MethodGet, "/workflows", "List the workflows and their inputs", "workflows"),
		func(ctx context.Context, _ *struct{}) (*workflowsOut, error) {
			out := &workflowsOut{}
			out.Body.Workflows = []Workflow{}
			if a.cfg.Workflows == nil {
				return out, nil
			}
			set := a.cfg.Workflows.Snapshot()
			for _, f := range set.Files() {
				w := Workflow{Name: f.Name, File: f.Path, Inputs: []WorkflowInput{}}
				for _, p := range f.Problems {
					w.Problems = append(w.Problems, p.String())
				}
				if wf, ok := set.Workflow(f.Path); ok {
					w.Description = wf.Description
					for _, in := range wf.Inputs {
						w.Inputs = append(w.Inputs, WorkflowInput{Name: in.Name, Type: in.Type, Required: in.Required, Default: in.Default, Description: in.Description})
					}
				}
				out.Body.Workflows = append(out.Body.Workflows, w)
			}
			return out, nil
		})
	start := op("startWorkflowRun", http.MethodPost, "/workflows/{name}/runs", "Start a run of a workflow", "workflows",
		http.StatusNotFound, http.StatusServiceUnavailable)
	start.DefaultStatus = http.StatusCreated
	huma.Register(api, start, a.startWorkflow)
}

// startWorkflow starts a workflow run as its start form does.
func (a *API) startWorkflow(ctx context.Context, in *startWorkflowIn) (*startOut, error) {
	if a.cfg.WorkflowRunner == nil || a.cfg.Runs == nil || a.cfg.Workflows == nil {
		return nil, unavailable("start workflow runs: it has no workflows folder, runtime or trace store")
	}
	wf, ok := a.cfg.Workflows.Snapshot().Named(in.Name)
	if !ok {
		return nil, fail(core.NotFound("workflow", in.Name))
	}
	inputs, err := workflow.ResolveInputs(wf, in.Body.Inputs) // a missing, unknown or mistyped input
	if err != nil {
		return nil, core.NewAPIError(http.StatusUnprocessableEntity, err.Error())
	}
	req := core.WorkflowRunRequest{Workflow: wf, Inputs: inputs, Model: in.Body.Model, Caller: &core.Caller{Protocol: "api"}, TraceParent: in.TraceParent}
	ex, err := a.cfg.Live.StartWorkflow(a.cfg.WorkflowRunner, req)
	if err != nil {
		return nil, fail(err)
	}
	out, err := a.started(ctx, ex, in.Body.Wait)
	if err == nil && out.Body.Outcome != nil {
		wo := core.WorkflowOutcomeOf(wf, ex, *out.Body.Outcome)
		out.Body.Workflow = &wo
	}
	return out, err
}
