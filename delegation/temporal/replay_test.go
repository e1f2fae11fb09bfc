package temporal_test

import (
	"context"
	"fmt"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentry/agentry/delegation/temporal"
)

// replayAll replays the histories of the run's workflow and its children
// (their IDs start with the run's) and returns how many it replayed.
func replayAll(c client.Client, runID string) (int, error) {
	ctx := context.Background()
	resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{PageSize: 100})
	if err != nil {
		return 0, err
	}
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(temporal.RunWorkflow, workflow.RegisterOptions{Name: temporal.RunWorkflowName})
	r.RegisterWorkflowWithOptions(temporal.InvocationWorkflow, workflow.RegisterOptions{Name: temporal.InvocationWorkflowName})
	r.RegisterWorkflowWithOptions(temporal.ApprovalWorkflow, workflow.RegisterOptions{Name: temporal.ApprovalWorkflowName})
	r.RegisterWorkflowWithOptions(temporal.WorkflowRunWorkflow, workflow.RegisterOptions{Name: temporal.WorkflowRunName})
	n := 0
	for _, ex := range resp.Executions {
		id := ex.GetExecution().GetWorkflowId()
		if len(id) < len(runID) || id[:len(runID)] != runID {
			continue
		}
		it := c.GetWorkflowHistory(ctx, id, ex.GetExecution().GetRunId(), false, 0)
		h := &historypb.History{}
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				return n, err
			}
			h.Events = append(h.Events, ev)
		}
		if err := r.ReplayWorkflowHistory(nil, h); err != nil {
			return n, fmt.Errorf("replay %s: %w", id, err)
		}
		n++
	}
	return n, nil
}
