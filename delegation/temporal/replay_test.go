package temporal_test

import (
	"context"
	"fmt"
	"strings"

	commonpb "go.temporal.io/api/common/v1"
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

// eachHistory calls fn with the history of the run's workflow (its ID is
// the run's) and of each workflow under it: the children a history started,
// found in the histories themselves, and the workflows a YAML workflow's
// activities started, listed by their IDs (which start with the run's). The
// visibility store behind that list lags the histories under load, and a
// child that had just ended was missed when the list alone was asked.
func eachHistory(c client.Client, runID string, fn func(id string, h *historypb.History) error) error {
	queue := []*commonpb.WorkflowExecution{{WorkflowId: runID}}
	resp, err := c.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{PageSize: 100})
	if err != nil {
		return err
	}
	for _, ex := range resp.Executions {
		if strings.HasPrefix(ex.GetExecution().GetWorkflowId(), runID) {
			queue = append(queue, ex.GetExecution())
		}
	}
	seen := map[string]bool{}
	for len(queue) > 0 {
		ex := queue[0]
		queue = queue[1:]
		if seen[ex.GetWorkflowId()] {
			continue
		}
		seen[ex.GetWorkflowId()] = true
		h, children, err := history(c, ex)
		if err != nil {
			return err
		}
		queue = append(queue, children...)
		if err := fn(ex.GetWorkflowId(), h); err != nil {
			return err
		}
	}
	return nil
}

// history reads the history of ex and the child workflows it started.
func history(c client.Client, ex *commonpb.WorkflowExecution) (*historypb.History, []*commonpb.WorkflowExecution, error) {
	it := c.GetWorkflowHistory(context.Background(), ex.GetWorkflowId(), ex.GetRunId(), false, 0)
	h := &historypb.History{}
	var children []*commonpb.WorkflowExecution
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return nil, nil, err
		}
		h.Events = append(h.Events, ev)
		if a := ev.GetChildWorkflowExecutionStartedEventAttributes(); a != nil {
			children = append(children, a.GetWorkflowExecution())
		}
	}
	return h, children, nil
}
