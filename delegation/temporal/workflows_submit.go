package temporal

import (
	"context"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	flow "github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/trace"
)

// FlowExecution is a workflow run submitted to Temporal.
type FlowExecution struct {
	e   *Engine
	id  string
	run client.WorkflowRun
}

// StartWorkflow submits a run of the workflow file (its name and text)
// with resolved inputs and the root span's attributes (who asked; nil for
// none); its workflow ID is the run's trace ID.
func (e *Engine) StartWorkflow(ctx context.Context, file string, source []byte, inputs map[string]any, model string, timeout time.Duration, attrs map[string]any) (*FlowExecution, error) {
	run := trace.Run{ID: trace.NewRunID(), StartedAt: time.Now().UTC()}
	wr, err := e.client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: run.ID, TaskQueue: e.cfg.TaskQueue,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE},
		WorkflowRunName, WorkflowRunInput{Run: run, File: file, Source: source, Inputs: inputs, Model: model, Timeout: timeout, Attributes: attrs})
	if err != nil {
		return nil, fmt.Errorf("submit workflow run to temporal: %w", err)
	}
	return &FlowExecution{e: e, id: run.ID, run: wr}, nil
}

// RunID is the run's trace ID (and workflow ID).
func (x *FlowExecution) RunID() string { return x.id }

// Wait waits for the run's result.
func (x *FlowExecution) Wait(ctx context.Context) (WorkflowRunResult, error) {
	var r WorkflowRunResult
	if err := x.run.Get(ctx, &r); err != nil {
		return WorkflowRunResult{Result: &flow.Result{RunID: x.id, Status: flow.StatusError, Error: message(err)}}, err
	}
	return r, nil
}

// Cancel cancels the run's workflow.
func (x *FlowExecution) Cancel(ctx context.Context) error {
	return x.e.client.CancelWorkflow(ctx, x.id, "")
}
