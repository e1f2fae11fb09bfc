package a2a_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/a2a"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// echo is an A2A agent that is not agentry, served by the SDK's own
// handler, without streaming (so the client sends and polls): it echoes
// its task, fails on "fail", rejects "reject" and works on "wait" until
// it is cancelled.
type echo struct{}

func (echo) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	if err := q.Write(ctx, statusOf(rc, sdk.TaskStateWorking, "", false)); err != nil {
		return err
	}
	task := rc.Message.Parts[0].(sdk.TextPart).Text
	switch task {
	case "fail":
		return q.Write(ctx, statusOf(rc, sdk.TaskStateFailed, "no can do", true))
	case "reject":
		return q.Write(ctx, statusOf(rc, sdk.TaskStateRejected, "not my kind of task", true))
	case "wait":
		<-ctx.Done()
		return nil
	}
	var context string
	if len(rc.Message.Parts) > 1 {
		context = " (" + rc.Message.Parts[1].(sdk.TextPart).Text + ")"
	}
	if err := q.Write(ctx, sdk.NewArtifactEvent(rc, sdk.TextPart{Text: "echo: " + task + context})); err != nil {
		return err
	}
	return q.Write(ctx, statusOf(rc, sdk.TaskStateCompleted, "", true))
}

func (echo) Cancel(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	return q.Write(ctx, statusOf(rc, sdk.TaskStateCanceled, "stopped", true))
}

func statusOf(rc *a2asrv.RequestContext, st sdk.TaskState, msg string, final bool) *sdk.TaskStatusUpdateEvent {
	var m *sdk.Message
	if msg != "" {
		m = sdk.NewMessageForTask(sdk.MessageRoleAgent, rc, sdk.TextPart{Text: msg})
	}
	ev := sdk.NewStatusUpdateEvent(rc, st, m)
	ev.Final = final
	return ev
}

// serveEcho serves echo's card at the well-known path and its JSON-RPC
// endpoint at /rpc.
func serveEcho(t *testing.T) (*httptest.Server, *sdk.AgentCard) {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	card := &sdk.AgentCard{Name: "Echo Agent", Description: "Echoes its task", URL: srv.URL + "/rpc", ProtocolVersion: "0.3.0",
		PreferredTransport: sdk.TransportProtocolJSONRPC, DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"}}
	mux.Handle(a2a.CardPath, a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/rpc", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(echo{})))
	return srv, card
}

func resolveOne(t *testing.T, agent a2a.Agent) delegation.RemoteAgent {
	t.Helper()
	agents, problems := a2a.Resolve(context.Background(), []a2a.Agent{agent}, nil)
	if len(problems) != 0 || len(agents) != 1 {
		t.Fatalf("Resolve = %v, %v", agents, problems)
	}
	return agents[0]
}

func TestAnAgentWithoutStreamingIsSentToAndPolledUntilItsTaskEnds(t *testing.T) {
	srv, _ := serveEcho(t)
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
	srv, card := serveEcho(t)
	ra := resolveOne(t, a2a.Agent{Card: srv.URL + a2a.CardPath, ID: "echo"})
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() { time.Sleep(300 * time.Millisecond); cancel(delegation.ErrCancelled) }()
	o := ra.Remote.Send(ctx, delegation.RemoteTask{Task: "wait"})
	id, _ := o.Attributes[semconv.AttrA2ATaskID].(string)
	if o.Status != trace.StatusCancelled || o.Error != "run cancelled" || id == "" {
		t.Fatalf("outcome = %+v", o)
	}
	c, err := a2aclient.NewFromCard(context.Background(), card)
	if err != nil {
		t.Fatal(err)
	}
	task, err := c.GetTask(context.Background(), &sdk.TaskQueryParams{ID: sdk.TaskID(id)})
	if err != nil || task.Status.State != sdk.TaskStateCanceled {
		t.Fatalf("remote task = %+v, %v; want canceled", task, err)
	}
}

func TestAnUnreachableCardIsAProblemNamingItsURL(t *testing.T) {
	srv, _ := serveEcho(t)
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
