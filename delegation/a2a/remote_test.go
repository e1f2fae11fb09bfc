package a2a_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"

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

// An attempt whose engine hands its task to a later attempt (Temporal:
// the attempt timed out, its worker stops) leaves the task running: the
// retry follows it. Without a hand-over the task is cancelled there.
func TestAnAttemptThatHandsItsTaskOverSendsNoCancel(t *testing.T) {
	for _, handOver := range []bool{true, false} {
		t.Run(map[bool]string{true: "handed over", false: "cancelled"}[handOver], func(t *testing.T) {
			agent := a2atest.Start(t, true)
			ra := resolveOne(t, a2a.Agent{Card: agent.URL, ID: "echo"})
			ctx, cancel := context.WithCancelCause(context.Background())
			cause := map[bool]error{true: delegation.ErrHandedOver, false: delegation.ErrCancelled}[handOver]
			var told delegation.RemoteRef
			at := delegation.RemoteAttempt{Started: func(r delegation.RemoteRef) { told = r; cancel(cause) }}
			o := ra.Remote.Send(ctx, delegation.RemoteTask{Task: "hold", RemoteAttempt: at})
			id, _ := o.Attributes[semconv.AttrA2ATaskID].(string)
			want := map[bool]sdk.TaskState{true: sdk.TaskStateWorking, false: sdk.TaskStateCanceled}[handOver]
			if told.Card != agent.URL || told.TaskID != id || told.ContextID == "" {
				t.Errorf("started = %+v", told)
			}
			if o.HandedOver != handOver || id == "" || a2atest.TaskState(t, agent.Card, id) != want ||
				agent.Calls("tasks/cancel") != map[bool]int{true: 0, false: 1}[handOver] {
				t.Fatalf("outcome = %+v; tasks/cancel sent %d; remote task %s", o, agent.Calls("tasks/cancel"), a2atest.TaskState(t, agent.Card, id))
			}
		})
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

// serveCard serves card at the well-known path of a server of its own and
// returns the server's URL; at says, from that URL, where its endpoint is.
func serveCard(t *testing.T, card sdk.AgentCard, at func(base string) string) string {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	card.URL, card.PreferredTransport, card.ProtocolVersion = at(srv.URL), sdk.TransportProtocolJSONRPC, "0.3.0"
	mux.HandleFunc(a2a.CardPath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(card)
	})
	return srv.URL
}

func TestACardCannotNameItselfIntoTheBuiltInAgentOrAnotherRemotesID(t *testing.T) {
	rpc := func(base string) string { return base + "/rpc" }
	gp := serveCard(t, sdk.AgentCard{Name: "General Purpose"}, rpc)
	echo, _ := a2atest.Serve(t)
	agents, problems := a2a.Resolve(context.Background(), []a2a.Agent{{Card: gp}, {Card: echo.URL}, {Card: echo.URL}}, nil)
	if len(agents) != 1 || agents[0].Name != "echo-agent" || len(problems) != 2 ||
		!strings.Contains(problems[0].Error(), `"general-purpose" is the built-in agent's id`) ||
		!strings.Contains(problems[1].Error(), `"echo-agent" is already another a2a entry's id`) {
		t.Fatalf("Resolve = %v, %v", agents, problems)
	}
}

// The id the user gave an entry is its, even when an entry listed before
// it is named only by a card that names itself so: that card is left out,
// and the views (Offline, which reads no card) show what the runtime does.
func TestAConfiguredIDIsTakenBeforeACardNamesItselfSo(t *testing.T) {
	echo, _ := a2atest.Serve(t) // its card is named "Echo Agent"
	other := serveCard(t, sdk.AgentCard{Name: "Other"}, func(base string) string { return base + "/rpc" })
	entries := []a2a.Agent{{Card: echo.URL}, {Card: other, ID: "echo-agent"}}
	agents, problems := a2a.Resolve(context.Background(), entries, nil)
	got := a2a.Targets(agents)
	if len(got) != 1 || got[0].Agent.Name != "echo-agent" || got[0].Card != other || len(problems) != 1 ||
		!strings.Contains(problems[0].Error(), "agent card "+echo.URL+`: "echo-agent" is already another a2a entry's id`) {
		t.Fatalf("Resolve = %+v, %v", got, problems)
	}
	if off := a2a.Offline(entries); off[0].Agent.Name != "echo-agent" || off[0].Card != got[0].Card {
		t.Fatalf("Offline = %+v; Resolve = %+v", off, got)
	}
}

func TestATokenIsNotSentToAnEndpointOnAnotherServer(t *testing.T) {
	var sawToken atomic.Bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			sawToken.Store(true)
		}
		http.Error(w, "no", http.StatusTeapot)
	}))
	t.Cleanup(other.Close)
	card := serveCard(t, sdk.AgentCard{Name: "Elsewhere"}, func(string) string { return other.URL + "/rpc" })
	agents, problems := a2a.Resolve(context.Background(), []a2a.Agent{{Card: card, ID: "elsewhere", Token: "s3cret"}}, nil)
	if len(agents) != 1 || len(problems) != 1 || !strings.Contains(problems[0].Error(), "names the endpoint "+other.URL+"/rpc on another server") {
		t.Fatalf("Resolve = %v, %v", agents, problems)
	}
	o := agents[0].Remote.Send(context.Background(), delegation.RemoteTask{Task: "hi"})
	if o.Status != trace.StatusError || !strings.Contains(o.Error, "its token is only sent to") || sawToken.Load() {
		t.Fatalf("outcome = %+v, token seen elsewhere: %v", o, sawToken.Load())
	}
	// Without a token nothing is at stake: the card is used as it is.
	if _, problems := a2a.Resolve(context.Background(), []a2a.Agent{{Card: card, ID: "elsewhere"}}, nil); len(problems) != 0 {
		t.Fatalf("without a token: %v", problems)
	}
}

// A retry of a lost attempt (on Temporal) names the task the attempt
// started (here started without a delegation, by a message/send of its
// own): Send follows that task (tasks/resubscribe with streaming, else
// tasks/get) to its outcome, and the remote gets the task once.
func TestAResumedDelegationFollowsItsTaskAndSendsNothing(t *testing.T) {
	for _, streaming := range []bool{true, false} {
		t.Run(map[bool]string{true: "streaming", false: "polling"}[streaming], func(t *testing.T) {
			agent := a2atest.Start(t, streaming)
			ra := resolveOne(t, a2a.Agent{Card: agent.URL, ID: "echo"})
			task := agent.Send(t, "hold")
			ref := delegation.RemoteRef{Card: agent.URL, TaskID: string(task.ID), ContextID: task.ContextID}
			var states []string
			var again []delegation.RemoteRef
			resumed := make(chan delegation.RemoteOutcome, 1)
			go func() {
				resumed <- ra.Remote.Send(context.Background(), delegation.RemoteTask{Task: "hold",
					Status:        func(st delegation.RemoteStatus) { states = append(states, st.State) },
					RemoteAttempt: delegation.RemoteAttempt{Resume: &ref, Started: func(r delegation.RemoteRef) { again = append(again, r) }}})
			}()
			// Following: resubscribed, or read the task and polled it once.
			follows, calls := map[bool]string{true: "tasks/resubscribe", false: "tasks/get"}[streaming], map[bool]int{true: 1, false: 2}[streaming]
			for agent.Calls(follows) < calls {
				time.Sleep(10 * time.Millisecond)
			}
			agent.Release()
			o := <-resumed
			if o.Status != trace.StatusOK || o.Result != "echo: hold" || o.Attributes[semconv.AttrA2ATaskID] != ref.TaskID {
				t.Errorf("resumed outcome = %+v", o)
			}
			if len(again) != 1 || again[0] != ref || !slices.Contains(states, "completed") {
				t.Errorf("told started %+v; states %v", again, states)
			}
			if n := agent.Calls("message/send", "message/stream"); n != 1 {
				t.Errorf("the remote got %d tasks, want 1", n)
			}
		})
	}
}

// A resumed task that streams keeps the artifacts written between the
// resume's tasks/get and its tasks/resubscribe (which streams only later
// events): the task is read once more when the stream ends it.
func TestAResumedStreamKeepsTheArtifactsWrittenBeforeIt(t *testing.T) {
	agent := a2atest.Start(t, true)
	ra := resolveOne(t, a2a.Agent{Card: agent.URL, ID: "echo"})
	task := agent.Send(t, "hold twice")
	c, err := a2aclient.NewFromCard(context.Background(), agent.Card)
	if err != nil {
		t.Fatal(err)
	}
	agent.Before("tasks/resubscribe", func() { // after the resume read the task: the echo is written now
		agent.Release()
		for {
			got, err := c.GetTask(context.Background(), &sdk.TaskQueryParams{ID: task.ID})
			if err != nil || len(got.Artifacts) > 0 {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
	ref := delegation.RemoteRef{Card: agent.URL, TaskID: string(task.ID), ContextID: task.ContextID}
	o := ra.Remote.Send(context.Background(), delegation.RemoteTask{Task: "hold twice",
		Status: func(st delegation.RemoteStatus) {
			if st.Message == "written" { // the stream hears the task: let it complete
				agent.Finish()
			}
		}, RemoteAttempt: delegation.RemoteAttempt{Resume: &ref}})
	if o.Status != trace.StatusOK || o.Result != "echo: hold twice" {
		t.Fatalf("outcome = %+v", o)
	}
}

// A retry that has ended before it starts (on Temporal: its agent's
// timeout, counted from the first attempt, has passed) cancels the task
// the lost attempt started without following it, even on a worker that
// has not read the agent's card yet.
func TestAResumeAlreadyTimedOutCancelsItsTaskOnAWorkerWithoutTheCard(t *testing.T) {
	agent := a2atest.Start(t, false)
	var fetches atomic.Int32
	card := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if fetches.Add(1) == 1 { // not read when the worker started
			http.NotFound(w, nil)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(agent.Card)
	}))
	t.Cleanup(card.Close)
	remote, _ := a2a.Resolve(context.Background(), []a2a.Agent{{Card: card.URL, ID: "echo"}}, nil)
	task := agent.Send(t, "wait")
	ref := delegation.RemoteRef{Card: card.URL, TaskID: string(task.ID), ContextID: task.ContextID}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(delegation.ErrAgentTimeout)
	o := remote[0].Remote.Send(ctx, delegation.RemoteTask{Task: "hi", RemoteAttempt: delegation.RemoteAttempt{Resume: &ref}})
	if o.Status != trace.StatusCancelled || agent.Calls("tasks/cancel") != 1 {
		t.Fatalf("outcome = %+v; tasks/cancel sent %d", o, agent.Calls("tasks/cancel"))
	}
	if st := a2atest.TaskState(t, agent.Card, string(task.ID)); st != sdk.TaskStateCanceled {
		t.Errorf("remote task is %s; want canceled", st)
	}
}

// A task the remote no longer knows ends the delegation naming it; it is
// not sent again. Nor is one started at a card the agent no longer has.
func TestAResumedTaskTheRemoteDoesNotKnowIsAnError(t *testing.T) {
	agent := a2atest.Start(t, true)
	ra := resolveOne(t, a2a.Agent{Card: agent.URL, ID: "echo"})
	for _, ref := range []delegation.RemoteRef{{Card: agent.URL, TaskID: "gone-task"}, {Card: "http://elsewhere", TaskID: "gone-task"}} {
		o := ra.Remote.Send(context.Background(), delegation.RemoteTask{Task: "hi", RemoteAttempt: delegation.RemoteAttempt{Resume: &ref}})
		if o.Status != trace.StatusError || !strings.Contains(o.Error, "remote task gone-task") || !strings.Contains(o.Error, "not sent again") {
			t.Errorf("%s: outcome = %+v", ref.Card, o)
		}
	}
	if n := agent.Calls("message/send", "message/stream"); n != 0 {
		t.Errorf("the remote got %d tasks, want none", n)
	}
}
