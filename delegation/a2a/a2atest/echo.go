// Package a2atest is an A2A agent for tests that is not agentry: the
// SDK's own handler around Echo, a small executor, served without
// streaming so a client sends and polls.
package a2atest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"
)

// Echo is an A2A agent that is not agentry, served by the SDK's own
// handler, without streaming (so the client sends and polls): it echoes
// its task, fails on "fail", rejects "reject" and works on "wait" until
// it is cancelled.
type Echo struct{}

func (Echo) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
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

func (Echo) Cancel(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
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

// Serve serves Echo's card at the well-known path and its JSON-RPC
// endpoint at /rpc.
func Serve(t testing.TB) (*httptest.Server, *sdk.AgentCard) {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	card := &sdk.AgentCard{Name: "Echo Agent", Description: "Echoes its task", URL: srv.URL + "/rpc", ProtocolVersion: "0.3.0",
		PreferredTransport: sdk.TransportProtocolJSONRPC, DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"}}
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/rpc", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(Echo{})))
	return srv, card
}

// TaskState asks the agent of card for the state of task id (tasks/get):
// what a test reads to see that a cancel reached the remote side.
func TaskState(t testing.TB, card *sdk.AgentCard, id string) sdk.TaskState {
	t.Helper()
	c, err := a2aclient.NewFromCard(context.Background(), card)
	if err != nil {
		t.Fatal(err)
	}
	task, err := c.GetTask(context.Background(), &sdk.TaskQueryParams{ID: sdk.TaskID(id)})
	if err != nil {
		t.Fatalf("tasks/get %s: %v", id, err)
	}
	return task.Status.State
}
