package temporal_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/a2a"
	"github.com/agentry/agentry/delegation/a2a/a2atest"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// A Remote activity whose worker is killed on the last attempt its retry
// policy allows leaves no process to end the delegation: the server times
// the attempt out and the workflow hears that no retry follows. The
// workflow then cancels the remote task the attempt's last heartbeat
// named and ends the delegation's span error, worker lost on the last
// attempt. Without that the task ran on at the remote agent and the span
// stayed running. The kill is in-process: the last attempt's worker
// heartbeats only when told to (never, here), and its Send neither
// returns nor hears its context until the test ends, as on a worker that
// is gone.
func TestAKilledLastAttemptCancelsTheRemoteTask(t *testing.T) {
	agent := a2atest.Start(t, true)
	remote, problems := a2a.Resolve(context.Background(), []a2a.Agent{{Card: agent.URL, ID: "echo"}}, nil)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	k := &killable{Remote: remote[0].Remote, dead: make(chan struct{})}
	remote[0].Remote = k
	f := newFixture(t, "lead:\n  - calls: [{tool: delegate, args: {agent: echo, task: hold}}]\n  - say: lead is done\n",
		leadWithRemotes(t, remote))
	addr := temporaltest.Start(t, remoteNamespace)
	w1, x, c, ref := startRemoteRun(t, addr, f, "remote-killed")
	allowAttempts(t, c, x.RunID(), "Remote", 2)
	k.kills.Store(1) // the next Send is the killed worker's
	w1.stop()        // the first attempt hands the task over
	serveActivities(t, addr, "remote-killed", &temporal.Activities{Steps: f.rt.Steps(), Flush: f.rec.Flush, Beat: time.Hour})
	t.Cleanup(func() { close(k.dead) }) // before the worker stops: it waits for its activity
	got, err := x.Wait(t.Context())
	if err != nil || got.Status != trace.StatusOK || got.Result != "lead is done" {
		t.Fatalf("run = %+v, %v", got, err)
	}
	if k.killed.Load() != 1 {
		t.Fatalf("the last attempt's Send ran %d times on the killed worker; want once", k.killed.Load())
	}
	var sp, call trace.Span
	for _, s := range f.spans(t, x.RunID()) {
		switch s.Name {
		case "invoke_agent echo":
			sp = s
		case "execute_tool delegate":
			call = s
		}
	}
	state := a2atest.TaskState(t, agent.Card, ref.TaskID)
	t.Logf("remote span %s %q, delegate call span %s %q, remote task %s", sp.Status, sp.Error, call.Status, call.Error, state)
	const lost = "worker lost on the last attempt, so the remote task is cancelled, not left to a retry"
	switch {
	case sp.Attributes[semconv.AttrA2ATaskID] != ref.TaskID:
		t.Errorf("remote span = %+v; want it of task %s", sp, ref.TaskID)
	case sp.Status != trace.StatusError || !strings.Contains(sp.Error, lost):
		t.Errorf("remote span = %+v; want it ended error, %q", sp, lost)
	case state != sdk.TaskStateCanceled:
		t.Errorf("remote task %s is %s; want canceled", ref.TaskID, state)
	case call.Status != trace.StatusError || !strings.Contains(call.Error, lost):
		t.Errorf("delegate call span = %+v; want it ended error, %q", call, lost)
	}
}

// killable is a remote agent whose Send, once armed (kills), runs as on a
// killed worker: it neither returns nor hears its context until dead is
// closed, then leaves the task as it found it.
type killable struct {
	delegation.Remote
	kills, killed atomic.Int32
	dead          chan struct{}
}

func (k *killable) Send(ctx context.Context, t delegation.RemoteTask) delegation.RemoteOutcome {
	if k.kills.CompareAndSwap(1, 0) {
		k.killed.Add(1)
		<-k.dead
		return delegation.RemoteOutcome{HandedOver: true}
	}
	return k.Remote.Send(ctx, t)
}
