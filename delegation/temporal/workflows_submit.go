package temporal

import (
	"context"
	"time"

	flow "github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/trace"
)

// FlowExecution is a YAML workflow's run submitted to Temporal.
type FlowExecution struct{ submitted }

// StartWorkflow submits a run of the workflow file (its name and text)
// with resolved inputs and the root span's attributes (who asked; nil for
// none).
func (e *Engine) StartWorkflow(ctx context.Context, file string, source []byte, inputs map[string]any, model string, timeout time.Duration, attrs map[string]any) (*FlowExecution, error) {
	x, err := e.submit(ctx, "workflow run", WorkflowRunName, func(run trace.Run) any {
		return WorkflowRunInput{Run: run, File: file, Source: source, Inputs: inputs, Model: model, Timeout: timeout, Attributes: attrs}
	})
	if err != nil {
		return nil, err
	}
	return &FlowExecution{x}, nil
}

// Wait waits for the run's result.
func (x *FlowExecution) Wait(ctx context.Context) (WorkflowRunResult, error) {
	var r WorkflowRunResult
	if err := x.run.Get(ctx, &r); err != nil {
		return WorkflowRunResult{Result: &flow.Result{RunID: x.id, Status: flow.StatusError, Error: message(err)}}, err
	}
	return r, nil
}
