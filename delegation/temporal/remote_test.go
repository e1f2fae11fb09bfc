package temporal_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/a2a"
	"github.com/agentry/agentry/delegation/a2a/a2atest"
	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/delegation/temporal/temporaltest"
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
// there: the Remote activity hears it with its next heartbeat. On a real
// server: the SDK's test environment gives the activity a cancel as a
// lost attempt (its heartbeat's NotFound), which the activity hands over.
func TestCancellingTheWorkflowCancelsTheRemoteTask(t *testing.T) {
	agent := a2atest.Start(t, true)
	f := newFixture(t, "lead:\n  - calls: [{tool: delegate, args: {agent: echo, task: wait}}]\n  - say: never\n",
		leadWithRemoteEcho(t, agent.URL))
	w := serveRemote(t, temporaltest.Start(t, remoteNamespace), f, "remote-cancel")
	x, err := w.eng.Start(t.Context(), delegation.Request{Agent: "lead", Task: "go"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	until(t, "the remote got the task", func() bool { return agent.Calls("message/stream") == 1 })
	if err := x.Cancel(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, _ := x.Wait(t.Context()); got.Status != trace.StatusCancelled {
		t.Fatalf("run = %+v, want cancelled", got)
	}
	sp := remoteSpan(t, f, x.RunID())
	id, _ := sp.Attributes[semconv.AttrA2ATaskID].(string)
	if sp.Status != trace.StatusCancelled || id == "" {
		t.Fatalf("remote span = %+v", sp)
	}
	if st := a2atest.TaskState(t, agent.Card, id); st != sdk.TaskStateCanceled {
		t.Fatalf("remote task %s is %s; want canceled", id, st)
	}
}

// A worker that stops while its Remote activity follows a task leaves the
// task running: the activity's context ends (ErrWorkerShutdown), but the
// retry on another worker follows the same task, which must not have been
// cancelled under it.
func TestAStoppedWorkersRemoteTaskIsFollowedByTheRetry(t *testing.T) {
	agent := a2atest.Start(t, true)
	f := newFixture(t, "lead:\n  - calls: [{tool: delegate, args: {agent: echo, task: hold}}]\n  - say: lead is done\n",
		leadWithRemoteEcho(t, agent.URL))
	addr := temporaltest.Start(t, remoteNamespace)
	w1, x, _, _ := startRemoteRun(t, addr, f, "remote-handover")
	w1.stop()
	serveRemote(t, addr, f, "remote-handover")
	until(t, "the retry follows the task", func() bool { return agent.Calls("tasks/get") > 0 })
	agent.Release()
	got, err := x.Wait(t.Context())
	if err != nil || got.Status != trace.StatusOK || got.Result != "lead is done" {
		t.Fatalf("run = %+v, %v", got, err)
	}
	if n, sends := agent.Calls("tasks/cancel"), agent.Calls("message/stream"); n != 0 || sends != 1 {
		t.Errorf("the remote got %d tasks/cancel (want 0) and %d tasks (want 1)", n, sends)
	}
	if sp := remoteSpan(t, f, x.RunID()); sp.Status != trace.StatusOK || sp.Attributes[semconv.AttrResult] != "echo: hold" {
		t.Errorf("remote span = %+v", sp)
	}
}

const remoteNamespace = "agentry-remote-engine"

// startRemoteRun starts lead's run on a worker of f on the server at addr,
// on queue, and waits until its Remote activity's heartbeats name the
// remote task: it returns the worker, the run, a client of the server
// and the task.
func startRemoteRun(t *testing.T, addr string, f *fixture, queue string) (served, *temporal.Execution, client.Client, delegation.RemoteRef) {
	t.Helper()
	w := serveRemote(t, addr, f, queue)
	x, err := w.eng.Start(t.Context(), delegation.Request{Agent: "lead", Task: "go"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := dialRemote(t, addr)
	var ref delegation.RemoteRef
	until(t, "the attempt recorded its task", func() bool { ref, _ = remoteAttempt(c, x.RunID()); return ref.TaskID != "" })
	return w, x, c, ref
}

// dialRemote is a client of the server at addr, in the remote tests'
// namespace, closed when the test ends.
func dialRemote(t *testing.T, addr string) client.Client {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: addr, Namespace: remoteNamespace})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// served is a worker of f's runtime on a real server's task queue.
type served struct {
	eng  *temporal.Engine
	stop func() // stops the worker (its client stays) and waits until it has
}

// serveRemote starts a worker for f on the server at addr, on queue, and
// stops it when the test ends.
func serveRemote(t *testing.T, addr string, f *fixture, queue string) served {
	t.Helper()
	return serveActivities(t, addr, queue, &temporal.Activities{Steps: f.rt.Steps(), Flush: f.rec.Flush})
}

// serveActivities is serveRemote with the worker's activities given.
func serveActivities(t *testing.T, addr, queue string, acts *temporal.Activities) served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	eng, err := temporal.Dial(ctx, temporal.Config{Address: addr, Namespace: remoteNamespace, TaskQueue: queue}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ready, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		_ = eng.Serve(ctx, acts, func() { close(ready) })
	}()
	<-ready
	var once sync.Once
	stop := func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(eng.Close) // after stop: the client outlives its worker
	t.Cleanup(stop)
	return served{eng: eng, stop: stop}
}

// remoteSpan is the run's invoke_agent echo span once it has ended.
func remoteSpan(t *testing.T, f *fixture, runID string) trace.Span {
	t.Helper()
	var sp trace.Span
	until(t, "the remote span ended", func() bool {
		for _, s := range f.spans(t, runID) {
			if s.Name == "invoke_agent echo" {
				sp = s
			}
		}
		return sp.ID != "" && sp.Status != trace.StatusRunning
	})
	return sp
}

// A retry's heartbeats carry the lost attempt's task from the first one,
// before Send has connected (here: the card is fetched slowly at the
// retry's first delegation), so a retry lost early still leaves it for
// the next.
func TestARetrysEveryHeartbeatNamesTheLostAttemptsTask(t *testing.T) {
	agent := a2atest.Start(t, false)
	args := remoteActivityArgs(t, agent.URL)
	var fetches atomic.Int32
	slowCard := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if fetches.Add(1) == 1 { // the runtime is built without it: fetched at the first delegation
			http.NotFound(w, nil)
			return
		}
		time.Sleep(300 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(agent.Card)
	}))
	t.Cleanup(slowCard.Close)
	remote, _ := a2a.Resolve(context.Background(), []a2a.Agent{{Card: slowCard.URL, ID: "echo"}}, nil)
	retry := newFixture(t, remoteScript, leadWithRemotes(t, remote))
	task := agent.Send(t, "hi")
	lost := delegation.RemoteRef{Card: slowCard.URL, TaskID: string(task.ID), ContextID: task.ContextID}
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := s.NewTestActivityEnvironment()
	acts := &temporal.Activities{Steps: retry.rt.Steps(), Beat: time.Millisecond}
	env.RegisterActivity(acts)
	env.SetHeartbeatDetails(lost)
	var mu sync.Mutex
	var beats []delegation.RemoteRef
	env.SetOnActivityHeartbeatListener(func(_ *activity.Info, d converter.EncodedValues) {
		var ref delegation.RemoteRef
		if d != nil && d.HasValues() {
			_ = d.Get(&ref)
		}
		mu.Lock()
		beats = append(beats, ref)
		mu.Unlock()
	})
	res, err := env.ExecuteActivity(acts.Remote, args...)
	var o loop.Outcome
	if err != nil || res.Get(&o) != nil || o.Status != trace.StatusOK || o.Result != "echo: hi" {
		t.Fatalf("retry = %+v, %v", o, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(beats) == 0 || slices.ContainsFunc(beats, func(r delegation.RemoteRef) bool { return r != lost }) {
		t.Fatalf("heartbeats carried %+v; want %+v in each", beats, lost)
	}
}

// The remote agent's timeout counts from the delegation's first attempt,
// which each attempt's heartbeats carry on: a retry (the first attempt's
// worker lost, or its 10 minutes up while the task went on) whose start is
// longer ago than the timeout ends the delegation timed out at once,
// cancelling the task without following it, and one within it follows the
// task for what is left of the timeout, not a timeout of its own.
func TestARetryTimesOutAtTheTimeoutCountedFromTheFirstAttempt(t *testing.T) {
	for _, c := range []struct {
		name    string
		timeout time.Duration
		ago     time.Duration // since the first attempt started
	}{
		{"past", time.Minute, time.Hour},
		// Without counting from the first attempt this retry would follow
		// the task for the SDK's 10-minute StartToClose and hand it over.
		{"within", 30 * time.Minute, 30*time.Minute - 300*time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			agent := a2atest.Start(t, false)
			args := remoteActivityArgs(t, agent.URL)
			remote, problems := a2a.Resolve(context.Background(), []a2a.Agent{{Card: agent.URL, ID: "echo"}}, nil)
			if len(problems) > 0 {
				t.Fatal(problems)
			}
			remote[0].Timeout = c.timeout
			retry := newFixture(t, remoteScript, leadWithRemotes(t, remote))
			task := agent.Send(t, "wait")                           // works until cancelled
			before := agent.Calls("tasks/get", "tasks/resubscribe") // the first run's
			var s testsuite.WorkflowTestSuite
			s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
			env := s.NewTestActivityEnvironment()
			acts := &temporal.Activities{Steps: retry.rt.Steps(), Beat: time.Millisecond}
			env.RegisterActivity(acts)
			env.SetHeartbeatDetails(struct { // what the lost attempt's heartbeats carried
				delegation.RemoteRef
				Since time.Time
			}{delegation.RemoteRef{Card: agent.URL, TaskID: string(task.ID), ContextID: task.ContextID}, time.Now().Add(-c.ago)})
			res, err := env.ExecuteActivity(acts.Remote, args...)
			var o loop.Outcome
			if err != nil || res.Get(&o) != nil || o.Status != trace.StatusTimeout {
				t.Fatalf("retry = %+v, %v; want it timed out", o, err)
			}
			if follows := agent.Calls("tasks/get", "tasks/resubscribe") - before; c.ago > c.timeout && follows > 0 {
				t.Errorf("the retry followed the task (%d calls) after its timeout had passed", follows)
			}
			if st := a2atest.TaskState(t, agent.Card, string(task.ID)); st != sdk.TaskStateCanceled {
				t.Errorf("the remote task is %s; want it cancelled", st)
			}
		})
	}
}

// The workflow bounds the Remote activity by the remote agent's timeout,
// as it bounds a model call by its agent's, rather than by the 10 minutes
// a call without one gets: one attempt covers a longer timeout.
func TestTheRemoteActivityIsBoundedByTheAgentsTimeout(t *testing.T) {
	agent := a2atest.Start(t, false)
	remote, problems := a2a.Resolve(context.Background(), []a2a.Agent{{Card: agent.URL, ID: "echo"}}, nil)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	remote[0].Timeout = 30 * time.Minute
	tf := newFixture(t, remoteScript, leadWithRemotes(t, remote))
	var limit time.Duration
	res := tf.runTemporal(t, delegation.Request{Agent: "lead", Task: "go"}, func(env *testsuite.TestWorkflowEnvironment) {
		env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
			if info.ActivityType.Name == "Remote" {
				limit = info.Deadline.Sub(info.StartedTime)
			}
		})
	})
	if res.Status != trace.StatusOK || limit < 30*time.Minute || limit > 31*time.Minute {
		t.Fatalf("run = %+v; the Remote activity's start-to-close limit = %s, want the agent's 30m (and a margin)", res, limit)
	}
}

// remoteActivityArgs are the Remote activity's arguments (key, frame,
// item, delegation) of lead's delegation to echo, the A2A agent whose card
// is at cardURL, from a run on the test workflow environment: what a
// retry of that activity is given.
func remoteActivityArgs(t *testing.T, cardURL string) []any {
	t.Helper()
	var inputs converter.EncodedValues
	first := newFixture(t, remoteScript, leadWithRemoteEcho(t, cardURL))
	first.runTemporal(t, delegation.Request{Agent: "lead", Task: "go"}, func(env *testsuite.TestWorkflowEnvironment) {
		env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, args converter.EncodedValues) {
			if info.ActivityType.Name == "Remote" {
				inputs = args
			}
		})
	})
	var (
		key  delegation.Key
		fr   delegation.Frame
		item loop.Item
		rec  delegation.Delegation
	)
	if inputs == nil || inputs.Get(&key, &fr, &item, &rec) != nil {
		t.Fatal("no Remote activity's arguments")
	}
	return []any{key, fr, item, rec}
}

// leadWithRemoteEcho configures a runtime whose one agent, lead, may
// delegate to echo, the A2A agent whose card is at cardURL.
func leadWithRemoteEcho(t *testing.T, cardURL string) func(*delegation.Config) {
	t.Helper()
	remote, problems := a2a.Resolve(context.Background(), []a2a.Agent{{Card: cardURL, ID: "echo"}}, nil)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	return leadWithRemotes(t, remote)
}

// leadWithRemotes is leadWithRemoteEcho with the remote agents resolved;
// hasty is lead with a timeout of 3s.
func leadWithRemotes(t *testing.T, remote []delegation.RemoteAgent) func(*delegation.Config) {
	t.Helper()
	snap, err := registry.Load(fstest.MapFS{
		"lead.md":  {Data: []byte("---\nname: lead\ndescription: Leads.\nsubagents: {allow: [echo]}\n---\nLead.\n")},
		"hasty.md": {Data: []byte("---\nname: hasty\ndescription: Leads, in a hurry.\ntimeout: 3s\nsubagents: {allow: [echo]}\n---\nLead.\n")}},
		registry.Options{Remote: []string{"echo"}})
	if err != nil {
		t.Fatal(err)
	}
	return func(c *delegation.Config) { c.Agents, c.Remote = registry.New(snap), remote }
}
