package temporal_test

import (
	"context"
	"fmt"
	"strings"

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
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(temporal.RunWorkflow, workflow.RegisterOptions{Name: temporal.RunWorkflowName})
	r.RegisterWorkflowWithOptions(temporal.InvocationWorkflow, workflow.RegisterOptions{Name: temporal.InvocationWorkflowName})
	r.RegisterWorkflowWithOptions(temporal.ApprovalWorkflow, workflow.RegisterOptions{Name: temporal.ApprovalWorkflowName})
	r.RegisterWorkflowWithOptions(temporal.WorkflowRunWorkflow, workflow.RegisterOptions{Name: temporal.WorkflowRunName})
	n := 0
	err := eachHistory(c, runID, func(id string, h *historypb.History) error {
		if err := r.ReplayWorkflowHistory(nil, h); err != nil {
			return fmt.Errorf("replay %s: %w", id, err)
		}
		n++
		return nil
	})
	return n, err
}

// completedActivities counts the activities, by name, that the histories
// of the run's workflows record as completed.
func completedActivities(c client.Client, runID string) (map[string]int, error) {
	n := map[string]int{}
	err := eachHistory(c, runID, func(_ string, h *historypb.History) error {
		names := map[int64]string{}
		for _, ev := range h.Events {
			if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil {
				names[ev.GetEventId()] = a.GetActivityType().GetName()
			}
			if a := ev.GetActivityTaskCompletedEventAttributes(); a != nil {
				n[names[a.GetScheduledEventId()]]++
			}
		}
		return nil
	})
	return n, err
}

// eachHistory calls fn with the history of the run's workflow and of each
// of its children (their IDs start with the run's).
func eachHistory(c client.Client, runID string, fn func(id string, h *historypb.History) error) error {
	ctx := context.Background()
	resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{PageSize: 100})
	if err != nil {
		return err
	}
	for _, ex := range resp.Executions {
		id := ex.GetExecution().GetWorkflowId()
		if !strings.HasPrefix(id, runID) {
			continue
		}
		it := c.GetWorkflowHistory(ctx, id, ex.GetExecution().GetRunId(), false, 0)
		h := &historypb.History{}
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				return err
			}
			h.Events = append(h.Events, ev)
		}
		if err := fn(id, h); err != nil {
			return err
		}
	}
	return nil
}
