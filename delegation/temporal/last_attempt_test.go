package temporal_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"
	activitypb "go.temporal.io/api/activity/v1"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/types/known/fieldmaskpb"

	"github.com/agentry/agentry/delegation/a2a/a2atest"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	flow "github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// A Remote activity that loses its worker on the last attempt its retry
// policy allows hands nothing over, since no retry would follow the task:
// it cancels the remote task and ends the delegation's span with an
// error saying so. Without that the task runs on at the remote agent and
// the span stays running. On a real server, the policy changed while the
// first attempt runs, as an operator can (UpdateActivityOptions, `temporal
// activity update-options`): to two attempts, so the second attempt's Info
// says it is the last; or to unlimited ones (0), whose second attempt
// hands the task over to a third, as any attempt but the last does.
func TestALostLastAttemptCancelsTheRemoteTask(t *testing.T) {
	addr := temporaltest.Start(t, remoteNamespace)
	for _, c := range []struct {
		name     string
		attempts int32
	}{{"last of two", 2}, {"unlimited", 0}} {
		t.Run(c.name, func(t *testing.T) { loseTheSecondAttempt(t, addr, c.attempts) })
	}
}

// loseTheSecondAttempt stops the worker of a Remote activity's first
// attempt, after allowing it attempts in all, then the second's.
func loseTheSecondAttempt(t *testing.T, addr string, attempts int32) {
	agent := a2atest.Start(t, true)
	f := newFixture(t, "lead:\n  - calls: [{tool: delegate, args: {agent: echo, task: hold}}]\n  - say: lead is done\n",
		leadWithRemoteEcho(t, agent.URL))
	queue := fmt.Sprintf("remote-last-%d", attempts)
	w1, x, c, ref := startRemoteRun(t, addr, f, queue)
	allowAttempts(t, c, x.RunID(), "Remote", attempts)
	w1.stop() // the first attempt hands the task over
	w2 := serveRemote(t, addr, f, queue)
	until(t, "the second attempt follows the task", func() bool { return agent.Calls("tasks/resubscribe") == 1 })
	w2.stop()
	serveRemote(t, addr, f, queue)
	last := attempts == 2
	if !last {
		until(t, "the third attempt follows the task", func() bool { return agent.Calls("tasks/resubscribe") == 2 })
		agent.Release()
	}
	got, err := x.Wait(t.Context())
	if err != nil || got.Status != trace.StatusOK || got.Result != "lead is done" {
		t.Fatalf("run = %+v, %v", got, err)
	}
	// The activity ends the span before it completes, unless the stopped
	// worker's completion was lost: then the server timed the attempt out.
	var sp trace.Span
	until(t, "the remote span ended (a handed-over last attempt leaves it running)", func() bool {
		for _, s := range f.spans(t, x.RunID()) {
			if s.Name == "invoke_agent echo" {
				sp = s
			}
		}
		return sp.Status != trace.StatusRunning
	})
	state := a2atest.TaskState(t, agent.Card, ref.TaskID)
	switch {
	case sp.Attributes[semconv.AttrA2ATaskID] != ref.TaskID:
		t.Errorf("remote span = %+v; want it of task %s", sp, ref.TaskID)
	// (Without "(2 of 2)" when the server timed the attempt out: the
	// workflow ended it then, RemoteLost.)
	case last && (sp.Status != trace.StatusError || !strings.Contains(sp.Error, "worker lost on the last attempt") || !strings.Contains(sp.Error, "so the remote task is cancelled, not left to a retry")):
		t.Errorf("remote span = %+v; want it ended error, the worker lost on the last attempt", sp)
	case last && state != sdk.TaskStateCanceled:
		t.Errorf("remote task %s is %s; want canceled", ref.TaskID, state)
	case !last && (sp.Status != trace.StatusOK || sp.Attributes[semconv.AttrResult] != "echo: hold" || state != sdk.TaskStateCompleted):
		t.Errorf("remote span = %+v, task %s; want the third attempt to end it ok", sp, state)
	case !last && agent.Calls("tasks/cancel") != 0:
		t.Errorf("the remote got %d tasks/cancel; want none before the last attempt", agent.Calls("tasks/cancel"))
	}
}

// A YAML workflow run's PlayWorkflow activity that loses its worker on
// the last attempt its retry policy allows leaves nothing to a retry that
// will not come: the run ends error, worker lost on the last attempt, and
// is recorded so, its agents cancelled. Without that the run stayed
// running in the store and its agents went on. Its one step's agent holds
// on a remote task, so the step is going while both workers stop.
func TestAWorkflowRunsLostLastAttemptEndsTheRun(t *testing.T) {
	agent := a2atest.Start(t, true)
	f := newFixture(t, "lead:\n  - calls: [{tool: delegate, args: {agent: echo, task: hold}}]\n  - say: lead is done\n",
		leadWithRemoteEcho(t, agent.URL))
	addr := temporaltest.Start(t, remoteNamespace)
	// Activities that heartbeat at once, so the server shows when an
	// attempt runs rather than only that a worker took it.
	serve := func() served {
		return serveActivities(t, addr, "flow-last", &temporal.Activities{Steps: f.rt.Steps(), Flush: f.rec.Flush, Beat: time.Millisecond})
	}
	w1 := serve()
	x, err := w1.eng.StartWorkflow(t.Context(), "hold.yaml", []byte(holdFlow), nil, "script", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := dialRemote(t, addr)
	until(t, "the remote got the task", func() bool { return agent.Calls("message/stream") == 1 })
	allowAttempts(t, c, x.RunID(), "PlayWorkflow", 2)
	w1.stop() // the first attempt leaves the run to the second
	w2 := serve()
	until(t, "the second attempt plays the run", func() bool { return attemptRuns(c, x.RunID(), "PlayWorkflow") == 2 })
	w2.stop() // the last attempt
	serve()
	// The workflow's result says why when the stopped worker's completion
	// reached the server in time. It may not: the SDK turns one that comes
	// after the stop into a failure ("context canceled"), and the attempt,
	// which waits for the agents it cancels, no longer heartbeats, so the
	// server may time it out first. The run's record is the activity's to
	// write, once those agents have closed.
	if got, err := x.Wait(t.Context()); err != nil || got.Result.Status != flow.StatusError {
		t.Fatalf("run = %+v, %v; want it ended error", got.Result, err)
	}
	var run trace.Run
	until(t, "the run's record ended (a last attempt that leaves the run to a retry leaves it running)", func() bool {
		run, _ = f.store.Run(t.Context(), x.RunID())
		return run.Status != trace.StatusRunning
	})
	// The activity writes it with its attempt ("(2 of 2)"); when the server
	// timed the attempt out first, the workflow does (flow-lost), which
	// cannot know the attempt: both say the same otherwise.
	lost := regexp.MustCompile(`worker lost on the last attempt( \(2 of 2\))?, so its agents are cancelled`)
	if run.Status != trace.StatusError || !lost.MatchString(run.Error) {
		t.Errorf("run record = %+v; want it ended error, the worker lost on the last attempt", run)
	}
}

const holdFlow = `workflow: {name: hold, description: One step whose agent holds on a remote task}
steps:
  - {id: a, agent: lead, input: go}
`

// attemptRuns is the attempt of the run's pending activity of type kind
// once it runs on a worker (it has heartbeated since a worker took it: a
// worker that stops right after taking it does not run it), else 0.
func attemptRuns(c client.Client, runID, kind string) int32 {
	d, err := c.DescribeWorkflowExecution(context.Background(), runID, "")
	if err != nil {
		return 0
	}
	for _, a := range d.GetPendingActivities() {
		if a.GetActivityType().GetName() == kind && a.GetState() == enumspb.PENDING_ACTIVITY_STATE_STARTED &&
			a.GetLastHeartbeatTime().AsTime().After(a.GetLastStartedTime().AsTime()) {
			return a.GetAttempt()
		}
	}
	return 0
}

// allowAttempts sets the retry policy of the run's pending activity of
// type kind to n attempts, for the attempts after the one running.
func allowAttempts(t *testing.T, c client.Client, runID, kind string, n int32) {
	t.Helper()
	d, err := c.DescribeWorkflowExecution(context.Background(), runID, "")
	if err != nil {
		t.Fatal(err)
	}
	var id string
	for _, a := range d.GetPendingActivities() {
		if a.GetActivityType().GetName() == kind {
			id = a.GetActivityId()
		}
	}
	if id == "" {
		t.Fatalf("no pending %s activity", kind)
	}
	res, err := c.WorkflowService().UpdateActivityOptions(context.Background(), &workflowservice.UpdateActivityOptionsRequest{
		Namespace: remoteNamespace, Execution: &commonpb.WorkflowExecution{WorkflowId: runID},
		Activity:        &workflowservice.UpdateActivityOptionsRequest_Id{Id: id},
		ActivityOptions: &activitypb.ActivityOptions{RetryPolicy: &commonpb.RetryPolicy{MaximumAttempts: n}},
		UpdateMask:      &fieldmaskpb.FieldMask{Paths: []string{"retry_policy.maximum_attempts"}},
	})
	if err != nil {
		t.Fatalf("update the %s activity's retry policy: %v", kind, err)
	}
	if got := res.GetActivityOptions().GetRetryPolicy().GetMaximumAttempts(); got != n {
		t.Fatalf("the %s activity's retry policy allows %d attempts after the update, want %d", kind, got, n)
	}
}
