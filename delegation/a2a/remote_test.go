package a2a_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/a2a"
	"github.com/agentry/agentry/delegation/a2a/a2atest"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

func resolveOne(t *testing.T, agent a2a.Agent) delegation.RemoteAgent {
	t.Helper()
	agents, problems := a2a.Resolve(context.Background(), []a2a.Agent{agent}, nil)
	if len(problems) != 0 || len(agents) != 1 {
		t.Fatalf("Resolve = %v, %v", agents, problems)
	}
	return agents[0]
}

func TestAnAgentWithoutStreamingIsSentToAndPolledUntilItsTaskEnds(t *testing.T) {
	srv, _ := a2atest.Serve(t)
	ra := resolveOne(t, a2a.Agent{Card: srv.URL}) // a base URL, no id: the card names it
	if ra.Name != "echo-agent" || ra.Description != "Echoes its task" {
		t.Fatalf("agent = %+v", ra)
	}
	var mu sync.Mutex
	var states []string
	seen := func(st delegation.RemoteStatus) { mu.Lock(); states = append(states, st.State); mu.Unlock() }
	cases := []struct {
		task, context string
		status        trace.Status
		result, err   string
	}{
		{"hi", "a riddle", trace.StatusOK, "echo: hi (a riddle)", ""},
		{"fail", "", trace.StatusError, "", "no can do"},
		{"reject", "", trace.StatusDenied, "", "not my kind of task"},
	}
	for _, c := range cases {
		o := ra.Remote.Send(context.Background(), delegation.RemoteTask{Task: c.task, Context: c.context, Status: seen})
		if o.Status != c.status || o.Result != c.result || o.Error != c.err || o.Attributes[semconv.AttrA2ATaskID] == "" ||
			o.Attributes[semconv.AttrA2ACardURL] != srv.URL {
			t.Errorf("%s: outcome = %+v", c.task, o)
		}
	}
	if mu.Lock(); !strings.Contains(strings.Join(states, " "), "completed") {
		t.Errorf("states told = %v", states)
	}
	mu.Unlock()
}

func TestACancelledDelegationCancelsItsRemoteTask(t *testing.T) {
	srv, card := a2atest.Serve(t)
	ra := resolveOne(t, a2a.Agent{Card: srv.URL + a2a.CardPath, ID: "echo"})
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() { time.Sleep(300 * time.Millisecond); cancel(delegation.ErrCancelled) }()
	o := ra.Remote.Send(ctx, delegation.RemoteTask{Task: "wait"})
	id, _ := o.Attributes[semconv.AttrA2ATaskID].(string)
	if o.Status != trace.StatusCancelled || o.Error != "run cancelled" || id == "" {
		t.Fatalf("outcome = %+v", o)
	}
	if st := a2atest.TaskState(t, card, id); st != sdk.TaskStateCanceled {
		t.Fatalf("remote task %s is %s; want canceled", id, st)
	}
}

func TestAnUnreachableCardIsAProblemNamingItsURL(t *testing.T) {
	srv, _ := a2atest.Serve(t)
	gone := srv.URL + "/nowhere/agent-card.json" // 404
	agents, problems := a2a.Resolve(context.Background(), []a2a.Agent{{Card: gone, ID: "gone"}, {Card: gone}}, nil)
	if len(agents) != 1 || agents[0].Name != "gone" || len(problems) != 2 ||
		!strings.Contains(problems[0].Error(), gone+" could not be fetched") || !strings.Contains(problems[1].Error(), "left out") {
		t.Fatalf("Resolve = %v, %v", agents, problems)
	}
	o := agents[0].Remote.Send(context.Background(), delegation.RemoteTask{Task: "hi"})
	if o.Status != trace.StatusError || !strings.Contains(o.Error, gone+" could not be fetched") {
		t.Fatalf("outcome = %+v", o)
	}
}
