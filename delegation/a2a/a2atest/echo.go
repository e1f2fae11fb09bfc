// Package a2atest is an A2A agent for tests that is not agentry: the
// SDK's own handler around Echo, a small executor, served without
// streaming so a client sends and polls (Serve), or as a test chooses,
// counting the calls it gets (Start).
package a2atest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"
)

// Echo is an A2A agent that is not agentry, served by the SDK's own
// handler, without streaming (so the client sends and polls): it echoes
// its task, fails on "fail", rejects "reject", works on "wait" until it
// is cancelled, on "hold" until Hold is closed (then echoes it), and on
// "hold twice" until Hold is closed, then writes its echo and says
// "written" (a working status, again every 10 ms: a stream that joins
// late still hears it) until Finish is closed, then completes.
type Echo struct {
	Hold, Finish <-chan struct{}
}

func (e Echo) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
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
	case "hold", "hold twice":
		select {
		case <-ctx.Done():
			return nil
		case <-e.Hold:
		}
	}
	if task == "hold twice" {
		if err := q.Write(ctx, sdk.NewArtifactEvent(rc, sdk.TextPart{Text: "echo: " + task})); err != nil {
			return err
		}
		for {
			if err := q.Write(ctx, statusOf(rc, sdk.TaskStateWorking, "written", false)); err != nil {
				return err
			}
			select {
			case <-ctx.Done():
				return nil
			case <-e.Finish:
				return q.Write(ctx, statusOf(rc, sdk.TaskStateCompleted, "", true))
			case <-time.After(10 * time.Millisecond):
			}
		}
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
	a := Start(t, false)
	return a.Server, a.Card
}

// Agent is a served Echo as a test watches and steers it.
type Agent struct {
	*httptest.Server
	Card *sdk.AgentCard

	hold, finish     chan struct{}
	release, finishd sync.Once
	mu               sync.Mutex
	calls            map[string]int
	before           map[string]func()
}

// Start serves Echo as Serve does, its card saying streaming when
// streaming is set, counting the JSON-RPC calls it gets by method.
func Start(t testing.TB, streaming bool) *Agent {
	t.Helper()
	a := &Agent{hold: make(chan struct{}), finish: make(chan struct{}), calls: map[string]int{}, before: map[string]func(){}}
	mux := http.NewServeMux()
	a.Server = httptest.NewServer(mux)
	t.Cleanup(a.Server.Close)
	t.Cleanup(a.Release)
	t.Cleanup(a.Finish)
	a.Card = &sdk.AgentCard{Name: "Echo Agent", Description: "Echoes its task", URL: a.URL + "/rpc", ProtocolVersion: "0.3.0",
		PreferredTransport: sdk.TransportProtocolJSONRPC, DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Capabilities: sdk.AgentCapabilities{Streaming: streaming}}
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(a.Card))
	mux.Handle("/rpc", a.counted(a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(Echo{Hold: a.hold, Finish: a.finish}))))
	return a
}

// Release ends the tasks that hold.
func (a *Agent) Release() { a.release.Do(func() { close(a.hold) }) }

// Finish completes the tasks that hold twice, once released.
func (a *Agent) Finish() { a.finishd.Do(func() { close(a.finish) }) }

// Before has f run before the agent serves each call of method (once per
// call), so a test can make something happen between two calls.
func (a *Agent) Before(method string, f func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.before[method] = f
}

// Calls is how many JSON-RPC calls of the methods (message/send,
// tasks/get, ...) the agent got.
func (a *Agent) Calls(methods ...string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, m := range methods {
		n += a.calls[m]
	}
	return n
}

// counted counts each request's JSON-RPC method before next reads it.
func (a *Agent) counted(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req struct{ Method string }
		_ = json.Unmarshal(body, &req) // the handler answers a bad request
		a.mu.Lock()
		a.calls[req.Method]++
		before := a.before[req.Method]
		a.mu.Unlock()
		if before != nil {
			before()
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// TaskState asks the agent of card for the state of task id (tasks/get):
// what a test reads to see that a cancel reached the remote side.
func TaskState(t testing.TB, card *sdk.AgentCard, id string) sdk.TaskState {
	t.Helper()
	return Task(t, card, id).Status.State
}

// Task is task id as the agent of card has it (tasks/get).
func Task(t testing.TB, card *sdk.AgentCard, id string) *sdk.Task {
	t.Helper()
	task, err := client(t, card).GetTask(context.Background(), &sdk.TaskQueryParams{ID: sdk.TaskID(id)})
	if err != nil {
		t.Fatalf("tasks/get %s: %v", id, err)
	}
	return task
}

// Send starts a task of text at the agent (a non-blocking message/send)
// without a delegation to follow it, and returns it as it is at first.
func (a *Agent) Send(t testing.TB, text string) *sdk.Task {
	t.Helper()
	res, err := client(t, a.Card).SendMessage(context.Background(), &sdk.MessageSendParams{
		Message: sdk.NewMessage(sdk.MessageRoleUser, sdk.TextPart{Text: text}), Config: &sdk.MessageSendConfig{Blocking: new(false)}})
	task, ok := res.(*sdk.Task)
	if err != nil || !ok {
		t.Fatalf("message/send %q = %v, %v; want a task", text, res, err)
	}
	return task
}

func client(t testing.TB, card *sdk.AgentCard) *a2aclient.Client {
	t.Helper()
	c, err := a2aclient.NewFromCard(context.Background(), card)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
