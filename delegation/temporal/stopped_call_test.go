package temporal_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// A worker that stops gracefully (SIGTERM to `agentry worker`) while a
// model call or a tool call of a run is under way cancels nothing: the
// call's context ends with the worker's shutdown, and the activity is
// retried on another worker, the same attempt with the same key, so the
// run ends ok and its trace has the call once. Before, the activity
// completed with the call's context error and the run ended `cancelled:
// worker is now shutdown`, unless the SDK turned that late completion
// into a failure, which it does at random: so the test reads in the
// history that the retry followed the attempt's own failure. On the last
// attempt no retry would come, and the call ends error, saying so. On a
// real server, whose workers stop as `agentry worker` stops them
// (worker.Stop).
func TestAStoppedWorkersCallIsRetriedElsewhere(t *testing.T) {
	addr := temporaltest.Start(t, remoteNamespace)
	t.Run("model call", func(t *testing.T) { stopMidModelCall(t, addr) })
	t.Run("tool call", func(t *testing.T) { stopMidToolCall(t, addr) })
	t.Run("last attempt", func(t *testing.T) { stopMidLastModelCall(t, addr) })
}

// stopMidModelCall stops the worker whose Turn activity's model call
// holds, and serves the run on a second worker.
func stopMidModelCall(t *testing.T, addr string) {
	llm := newHoldingModel(1)
	f := newFixture(t, "", func(c *delegation.Config) {
		c.Models = model.Providers{"script": func(string) (model.LLM, error) { return llm, nil }}
	})
	x := stopWhileHeld(t, addr, f, "stopped-turn", "leaf", llm.held)
	got, err := x.Wait(t.Context())
	if err != nil || got.Status != trace.StatusOK || got.Result != "the answer" {
		t.Fatalf("run = %+v, %v; want ok, the model's answer", got, err)
	}
	if n := llm.calls.Load(); n != 2 {
		t.Errorf("the model was called %d times; want 2 (the stopped call, its retry)", n)
	}
	handedOver(t, addr, x.RunID(), "Turn")
	chats := ofKind(notCancelled(t, f, x.RunID()), trace.KindChat)
	if len(chats) != 1 || chats[0].Status != trace.StatusOK || chats[0].OutputTokens != 5 {
		t.Errorf("chat spans = %+v; want one, ok, with the answer's tokens", chats)
	}
	run, err := f.store.Run(t.Context(), x.RunID())
	if err != nil || run.Status != trace.StatusOK || run.InputTokens != 10 || run.OutputTokens != 5 {
		t.Errorf("run record = %+v, %v; want ok, the answer's tokens counted once", run, err)
	}
}

// stopMidLastModelCall stops the worker of a Turn activity's first
// attempt, after allowing it two attempts in all (as an operator can,
// `temporal activity update-options`), then the second's: no retry would
// follow the last, so its model call is not left to one but ends error,
// saying so, and so does the run.
func stopMidLastModelCall(t *testing.T, addr string) {
	llm := newHoldingModel(2)
	f := newFixture(t, "", func(c *delegation.Config) {
		c.Models = model.Providers{"script": func(string) (model.LLM, error) { return llm, nil }}
	})
	const queue = "stopped-last-turn"
	w1 := serveRemote(t, addr, f, queue)
	x, err := w1.eng.Start(t.Context(), delegation.Request{Agent: "leaf", Task: "go"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	untilHeld(t, llm.held)
	allowAttempts(t, dialRemote(t, addr), x.RunID(), "Turn", 2)
	w1.stop() // the first attempt leaves the call to the second
	w2 := serveRemote(t, addr, f, queue)
	untilHeld(t, llm.held)
	w2.stop() // the last attempt
	serveRemote(t, addr, f, queue)
	// The run's error is the call's when the stopped worker's completion
	// reached the server; the SDK may turn it into a failure ("context
	// canceled"), also final on the last attempt. The span is the
	// activity's to write before it returns.
	if got, err := x.Wait(t.Context()); err != nil || got.Status != trace.StatusError {
		t.Fatalf("run = %+v, %v; want it ended error", got, err)
	}
	if n := llm.calls.Load(); n != 2 {
		t.Errorf("the model was called %d times; want 2 (no retry after the last attempt)", n)
	}
	chats := ofKind(f.spans(t, x.RunID()), trace.KindChat)
	if len(chats) != 1 || chats[0].Status != trace.StatusError ||
		!strings.Contains(chats[0].Error, "worker lost on the last attempt (2 of 2), so the model call ends, not left to a retry") {
		t.Errorf("chat spans = %+v; want one, ended error, the worker lost on the last attempt", chats)
	}
}

// stopMidToolCall stops the worker whose Tool activity's call holds, and
// serves the run on a second worker, which calls the tool again with the
// same idempotency key.
func stopMidToolCall(t *testing.T, addr string) {
	held := make(chan struct{}, 1)
	f := newFixture(t, "tooly:\n  - calls: [{tool: filesystem.read_file, args: {path: note.txt}}]\n  - say: read\n",
		func(c *delegation.Config) {
			for i, tl := range c.Tools {
				if tl.Spec().Name == "filesystem.read_file" {
					c.Tools[i] = &holdingTool{Tool: tl, held: held}
				}
			}
		})
	x := stopWhileHeld(t, addr, f, "stopped-tool", "tooly", held)
	got, err := x.Wait(t.Context())
	if err != nil || got.Status != trace.StatusOK || got.Result != "read" {
		t.Fatalf("run = %+v, %v; want ok", got, err)
	}
	f.keys.mu.Lock()
	k := slices.Clone(f.keys.keys)
	f.keys.mu.Unlock()
	if len(k) != 2 || k[0] == "" || k[0] != k[1] {
		t.Errorf("idempotency keys = %q; want the stopped call's and its retry's, the same", k)
	}
	handedOver(t, addr, x.RunID(), "Tool")
	tools := ofKind(notCancelled(t, f, x.RunID()), trace.KindExecuteTool)
	if len(tools) != 1 || tools[0].Status != trace.StatusOK || tools[0].Attributes[semconv.AttrToolResult] != "the note" {
		t.Errorf("tool spans = %+v; want one, ok, with the file's text", tools)
	}
}

// stopWhileHeld starts agent's run on a worker of f on queue, stops that
// worker once held says a call is under way, and serves the run on
// a second worker. It returns the run.
func stopWhileHeld(t *testing.T, addr string, f *fixture, queue, agent string, held chan struct{}) *temporal.Execution {
	t.Helper()
	w1 := serveRemote(t, addr, f, queue)
	x, err := w1.eng.Start(t.Context(), delegation.Request{Agent: agent, Task: "go"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	untilHeld(t, held)
	w1.stop() // as `agentry worker` on SIGTERM: the call's context ends
	serveRemote(t, addr, f, queue)
	return x
}

// handedOver says the retry of the run's activity of type kind followed
// a failure its stopped attempt returned, leaving the call to it (so not
// the SDK's "context canceled", which it may make of a completion that
// comes after its worker stopped, and which retries it by chance).
func handedOver(t *testing.T, addr, runID, kind string) {
	t.Helper()
	it := dialRemote(t, addr).GetWorkflowHistory(t.Context(), runID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	scheduled := map[int64]bool{}
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == kind {
			scheduled[ev.GetEventId()] = true
		}
		if a := ev.GetActivityTaskStartedEventAttributes(); a != nil && scheduled[a.GetScheduledEventId()] {
			if a.GetAttempt() != 2 || a.GetLastFailure().GetMessage() != "the call is left to the activity's next attempt" {
				t.Errorf("%s ran as attempt %d after %q; want attempt 2, after the stopped attempt left the call to it", kind, a.GetAttempt(), a.GetLastFailure().GetMessage())
			}
			return
		}
	}
	t.Errorf("no %s activity ran", kind)
}

// untilHeld waits until a call says on held that it holds.
func untilHeld(t *testing.T, held chan struct{}) {
	t.Helper()
	until(t, "a call holds", func() bool {
		select {
		case <-held:
			return true
		default:
			return false
		}
	})
}

// notCancelled is the run's trace, failing the test for any span that
// ended cancelled (the stopped call's, left by a call that did not hand
// over) or is still running.
func notCancelled(t *testing.T, f *fixture, runID string) []trace.Span {
	t.Helper()
	spans := f.spans(t, runID)
	for _, sp := range spans {
		if sp.Status != trace.StatusOK {
			t.Errorf("span %s %q is %s (%s); want every span ok", sp.Kind, sp.Name, sp.Status, sp.Error)
		}
	}
	return spans
}

// ofKind is the spans of kind k.
func ofKind(spans []trace.Span, k trace.Kind) []trace.Span {
	return slices.DeleteFunc(spans, func(sp trace.Span) bool { return sp.Kind != k })
}

// holdingModel's first holds calls each hold until their context ends,
// as a model call in flight does, and say so on held; later calls answer.
type holdingModel struct {
	holds int32
	held  chan struct{}
	calls atomic.Int32
}

func newHoldingModel(holds int32) *holdingModel {
	return &holdingModel{holds: holds, held: make(chan struct{}, holds)}
}

func (m *holdingModel) Name() string { return "script" }

func (m *holdingModel) Generate(ctx context.Context, _ *model.Request) (*model.Response, error) {
	if m.calls.Add(1) <= m.holds {
		m.held <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return &model.Response{Text: "the answer", InputTokens: 10, OutputTokens: 5}, nil
}

// holdingTool's first call holds until its context ends, and says so on
// held (room for one); later calls run the tool.
type holdingTool struct {
	tool.Tool
	held  chan struct{}
	calls atomic.Int32
}

func (h *holdingTool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	if h.calls.Add(1) == 1 {
		_, _ = h.Tool.Call(ctx, args) // the key recorder sees the first call too
		h.held <- struct{}{}
		<-ctx.Done()
		return "", ctx.Err()
	}
	return h.Tool.Call(ctx, args)
}
