package temporal_test

import (
	"context"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"

	"go.temporal.io/sdk/client"

	"github.com/agentry/agentry/delegation/a2a/a2atest"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	flow "github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/trace"
)

// A YAML workflow run's PlayWorkflow attempt that ends while its worker
// lives, as a pause ends it (`temporal activity pause`: the attempt hears
// it from its heartbeat), hands the run over to the retry as a stopping
// worker does: its agents go on, the run is not recorded, and the retry,
// once the activity is unpaused, follows them to the run's end. Before,
// such an end was taken as the run's cancel: the agents were cancelled,
// the run recorded cancelled, and the retry read them cancelled.
func TestAPausedWorkflowRunIsHandedOverToTheRetry(t *testing.T) {
	agent := a2atest.Start(t, true)
	f := newFixture(t, "lead:\n  - calls: [{tool: delegate, args: {agent: echo, task: hold}}]\n  - say: lead is done\n",
		leadWithRemoteEcho(t, agent.URL))
	addr := temporaltest.Start(t, remoteNamespace)
	w := serveActivities(t, addr, "flow-paused", &temporal.Activities{Steps: f.rt.Steps(), Flush: f.rec.Flush, Beat: 10 * time.Millisecond})
	x, err := w.eng.StartWorkflow(t.Context(), "hold.yaml", []byte(holdFlow), nil, "script", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := dialRemote(t, addr)
	until(t, "the remote got the task", func() bool { return agent.Calls("message/stream") == 1 })
	exec := &commonpb.WorkflowExecution{WorkflowId: x.RunID()}
	if _, err := c.WorkflowService().PauseActivity(context.Background(), &workflowservice.PauseActivityRequest{
		Namespace: remoteNamespace, Execution: exec, Activity: &workflowservice.PauseActivityRequest_Type{Type: "PlayWorkflow"}}); err != nil {
		t.Fatalf("pause PlayWorkflow: %v", err)
	}
	// Paused once the attempt has failed; no longer pending if it took the
	// pause for the run's cancel and completed.
	var st enumspb.PendingActivityState
	until(t, "the paused attempt ended", func() bool {
		st = activityState(c, x.RunID(), "PlayWorkflow")
		return st == enumspb.PENDING_ACTIVITY_STATE_PAUSED || st == enumspb.PENDING_ACTIVITY_STATE_UNSPECIFIED
	})
	if st == enumspb.PENDING_ACTIVITY_STATE_PAUSED {
		if _, err := c.WorkflowService().UnpauseActivity(context.Background(), &workflowservice.UnpauseActivityRequest{
			Namespace: remoteNamespace, Execution: exec, Activity: &workflowservice.UnpauseActivityRequest_Type{Type: "PlayWorkflow"}}); err != nil {
			t.Fatalf("unpause PlayWorkflow: %v", err)
		}
		until(t, "the retry plays the run", func() bool { return attemptRuns(c, x.RunID(), "PlayWorkflow") == 2 })
	}
	agent.Release()
	got, err := x.Wait(t.Context())
	if err != nil || got.Result.Status != flow.StatusOK {
		t.Fatalf("run = %+v, %v; want it ended ok", got.Result, err)
	}
	run, err := f.store.Run(t.Context(), x.RunID())
	if err != nil || run.Status != trace.StatusOK {
		t.Errorf("run record = %+v, %v; want ok", run, err)
	}
	if n := agent.Calls("tasks/cancel"); n != 0 {
		t.Errorf("the remote got %d tasks/cancel; want none", n)
	}
}

// activityState is the state of the run's pending activity of type kind,
// UNSPECIFIED when none is pending.
func activityState(c client.Client, runID, kind string) enumspb.PendingActivityState {
	d, err := c.DescribeWorkflowExecution(context.Background(), runID, "")
	if err != nil {
		return enumspb.PENDING_ACTIVITY_STATE_UNSPECIFIED
	}
	for _, a := range d.GetPendingActivities() {
		if a.GetActivityType().GetName() == kind {
			return a.GetState()
		}
	}
	return enumspb.PENDING_ACTIVITY_STATE_UNSPECIFIED
}
