package temporal_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/a2a"
	"github.com/agentry/agentry/delegation/a2a/a2atest"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

const remoteScript = `lead:
  - calls: [{tool: delegate, args: {agent: echo, task: "hi", context: "a riddle"}}]
  - say: "lead is done"
`

// A delegation to a remote A2A agent (docs/a2a.md) runs as the Remote
// activity on Temporal and leaves the trace it leaves in-process.
func TestARemoteAgentIsDelegatedToOnBothEngines(t *testing.T) {
	srv, _ := a2atest.Serve(t)
	withRemote := leadWithRemoteEcho(t, srv.URL)
	req := delegation.Request{Agent: "lead", Task: "go"}
	in := newFixture(t, remoteScript, withRemote)
	want, err := in.rt.Run(context.Background(), req)
	if err != nil || want.Status != trace.StatusOK || want.Result != "lead is done" {
		t.Fatalf("in-process run = %+v, %v", want, err)
	}
	tf := newFixture(t, remoteScript, withRemote)
	got := tf.runTemporal(t, req)
	if got.Status != want.Status || got.Result != want.Result {
		t.Errorf("temporal run = %+v, want %+v", got, want)
	}
	ws, gs := shape(t, in, want.RunID), shape(t, tf, got.RunID)
	if strings.Join(ws, "\n") != strings.Join(gs, "\n") {
		t.Errorf("temporal trace:\n%s\n\nin-process trace:\n%s", strings.Join(gs, "\n"), strings.Join(ws, "\n"))
	}
	for _, sp := range tf.spans(t, got.RunID) {
		if sp.Name == "invoke_agent echo" {
			if sp.Status != trace.StatusOK || sp.Attributes[semconv.AttrA2ATaskID] == nil || sp.Attributes[semconv.AttrResult] != "echo: hi (Context from lead:\na riddle)" {
				t.Errorf("remote span on temporal = %+v", sp)
			}
			return
		}
	}
	t.Errorf("no invoke_agent echo span on temporal:\n%s", strings.Join(gs, "\n"))
}

// Cancelling the workflow while the remote task works cancels the task
// there: the Remote activity hears it with its next heartbeat.
func TestCancellingTheWorkflowCancelsTheRemoteTask(t *testing.T) {
	srv, card := a2atest.Serve(t)
	f := newFixture(t, "lead:\n  - calls: [{tool: delegate, args: {agent: echo, task: wait}}]\n  - say: never\n",
		leadWithRemoteEcho(t, srv.URL))
	got := f.runTemporal(t, delegation.Request{Agent: "lead", Task: "go"}, func(env *testsuite.TestWorkflowEnvironment) {
		env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
			if info.ActivityType.Name == "Remote" {
				go func() { time.Sleep(500 * time.Millisecond); env.CancelWorkflow() }()
			}
		})
	})
	if got.Status != trace.StatusCancelled {
		t.Fatalf("run = %+v, want cancelled", got)
	}
	var sp trace.Span
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, s := range f.spans(t, got.RunID) {
			if s.Name == "invoke_agent echo" {
				sp = s
			}
		}
		if sp.ID != "" && sp.Status != trace.StatusRunning { // the test environment does not wait for the cancelled activity
			break
		}
	}
	id, _ := sp.Attributes[semconv.AttrA2ATaskID].(string)
	if sp.Status != trace.StatusCancelled || id == "" {
		t.Fatalf("remote span = %+v", sp)
	}
	if st := a2atest.TaskState(t, card, id); st != sdk.TaskStateCanceled {
		t.Fatalf("remote task %s is %s; want canceled", id, st)
	}
}

// leadWithRemoteEcho configures a runtime whose one agent, lead, may
// delegate to echo, the A2A agent whose card is at cardURL.
func leadWithRemoteEcho(t *testing.T, cardURL string) func(*delegation.Config) {
	t.Helper()
	remote, problems := a2a.Resolve(context.Background(), []a2a.Agent{{Card: cardURL, ID: "echo"}}, nil)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	snap, err := registry.Load(fstest.MapFS{"lead.md": {Data: []byte("---\nname: lead\ndescription: Leads.\nsubagents: {allow: [echo]}\n---\nLead.\n")}},
		registry.Options{Remote: []string{"echo"}})
	if err != nil {
		t.Fatal(err)
	}
	return func(c *delegation.Config) { c.Agents, c.Remote = registry.New(snap), remote }
}
