package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/web/core"
)

// workflowTool is the MCP tool of workflow wf: its declared inputs are the
// tool's arguments.
func workflowTool(wf *workflow.Workflow) *sdk.Tool {
	desc := wf.Description
	if desc == "" {
		desc = "Runs the agentry workflow " + wf.Name + "."
	}
	return &sdk.Tool{Name: core.WorkflowPrefix + wf.Name, Title: wf.Name, Description: desc, InputSchema: inputSchema(wf),
		Annotations: &sdk.ToolAnnotations{Title: wf.Name, OpenWorldHint: ptr(true)}}
}

// inputSchema is the JSON Schema of wf's inputs: one property per input,
// typed as the input is (a json input takes any JSON value, a file_path a
// string), with its description and default; the required inputs without
// a default are required.
func inputSchema(wf *workflow.Workflow) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	for _, in := range wf.Inputs {
		p := &jsonschema.Schema{Description: in.Description}
		switch in.Type {
		case "number", "boolean":
			p.Type = in.Type
		case "json":
		default: // string, file_path
			p.Type = "string"
		}
		if in.HasDefault {
			p.Default, _ = json.Marshal(in.Default)
		}
		if in.Required && !in.HasDefault {
			s.Required = append(s.Required, in.Name)
		}
		s.Properties[in.Name] = p
	}
	return s
}

// callWorkflow runs workflow name for one tools/call, as `agentry workflow
// run` runs it, followed as an agent's call is (progress, asks,
// cancellation). The result is the workflow's final result as text (its
// report when it has none) and its outcome as structuredContent; a run
// that did not end ok or partial is an error.
func (s *Server) callWorkflow(name string) sdk.ToolHandlerFor[map[string]any, core.WorkflowOutcome] {
	return func(ctx context.Context, req *sdk.CallToolRequest, args map[string]any) (*sdk.CallToolResult, core.WorkflowOutcome, error) {
		wf, ok := s.cfg.ExposedWorkflow(name)
		if !ok {
			return nil, core.WorkflowOutcome{}, fmt.Errorf("workflow %s is no longer served", name)
		}
		ex, err := s.cfg.StartWorkflow(wf, args, callerOf(req.Session), traceParent(req.Params.Meta))
		if err != nil { // a missing, unknown or mistyped input, or the server stopping
			return nil, core.WorkflowOutcome{}, err
		}
		out, err := s.follow(ctx, req, ex)
		if err != nil {
			return nil, core.WorkflowOutcome{}, err
		}
		wo := core.WorkflowOutcomeOf(wf, ex, out)
		if wo.Outputs == nil { // an object, as the output schema says, also when no step kept one
			wo.Outputs = map[string]any{}
		}
		return textResult(wo.Answer(), wo.RunID, wo.Status, wo.Error, wo.OK()), wo, nil
	}
}
