package collectortest

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/otlp"
	"github.com/agentry/agentry/trace/semconv"
)

const runID = "4bf92f3577b34da6a3ce929d0e0e4736"

// tree is a small run: the root agent's model call, its delegation, and the
// sub-agent that failed under it. Each span is recorded when it starts and
// again when it ends, as the runtime does.
func tree() []trace.Span {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	root := trace.Span{ID: "00000000000000a1", RunID: runID, Kind: trace.KindInvokeAgent, Name: "invoke_agent coord",
		Agent: "coord", Status: trace.StatusOK, StartedAt: t0, EndedAt: t0.Add(time.Second), InputTokens: 30, OutputTokens: 9,
		Attributes: map[string]any{semconv.AttrModel: "openai:gpt-4.1-mini", semconv.AttrTask: "count the apples"}}
	chat := trace.Span{ID: "00000000000000a2", RunID: runID, ParentID: root.ID, Kind: trace.KindChat, Name: "chat openai:gpt-4.1-mini",
		Agent: "coord", Status: trace.StatusOK, StartedAt: t0, EndedAt: t0.Add(100 * time.Millisecond), InputTokens: 20, OutputTokens: 6,
		Attributes: map[string]any{semconv.AttrModel: "openai:gpt-4.1-mini", semconv.AttrRetryAttempt: 1, semconv.AttrResponseModel: "gpt-4.1-mini-2025-04-14"},
		Events:     []trace.Event{{Time: t0, Name: semconv.EventRetry, Attributes: map[string]any{semconv.EventAttrAttempt: 1}}}}
	tool := trace.Span{ID: "00000000000000a3", RunID: runID, ParentID: root.ID, Kind: trace.KindExecuteTool, Name: "execute_tool delegate",
		Agent: "coord", Status: trace.StatusOK, StartedAt: t0.Add(time.Millisecond), EndedAt: t0.Add(900 * time.Millisecond),
		Attributes: map[string]any{semconv.AttrToolName: "delegate", semconv.AttrToolCallID: "call_1", semconv.AttrToolArguments: `{"agent":"leaf"}`,
			semconv.AttrToolResult: strings.Repeat("long result ", 2000)}} // lengths of 3 varint bytes
	leaf := trace.Span{ID: "00000000000000a4", RunID: runID, ParentID: tool.ID, Kind: trace.KindInvokeAgent, Name: "invoke_agent leaf",
		Agent: "leaf", Depth: 1, Status: trace.StatusTimeout, Error: "leaf timed out", StartedAt: t0.Add(2 * time.Millisecond),
		EndedAt: t0.Add(800 * time.Millisecond), Attributes: map[string]any{semconv.AttrModel: "anthropic:claude-sonnet-4-5"}}
	running := func(sp trace.Span) trace.Span { sp.Status, sp.EndedAt = trace.StatusRunning, time.Time{}; return sp }
	never := trace.Span{ID: "00000000000000a5", RunID: runID, ParentID: leaf.ID, Kind: trace.KindChat, Name: "chat x",
		Status: trace.StatusRunning, StartedAt: t0}
	return []trace.Span{running(root), running(chat), chat, running(tool), running(leaf), never, leaf, tool, root}
}

func TestTreeReachesTheCollectorOverHTTPAndGRPC(t *testing.T) {
	c := startCollector(t)
	for _, tc := range []struct {
		protocol, endpoint string
		capture            bool
	}{
		{otlp.ProtocolHTTP, c.httpURL, false},
		{otlp.ProtocolGRPC, c.grpc, true},
	} {
		t.Run(tc.protocol, func(t *testing.T) {
			c.sink.Reset()
			e, err := otlp.New(context.Background(), otlp.Config{Endpoint: tc.endpoint, Protocol: tc.protocol,
				CaptureContent: tc.capture, ServiceName: "tree-test", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				t.Fatal(err)
			}
			for _, sp := range tree() {
				e.RecordSpan(sp)
			}
			if err := e.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			spans := c.spans(t, 4)
			if len(spans) != 4 {
				t.Fatalf("collector got %d spans, want the 4 that ended, each once: %+v", len(spans), spans)
			}
			m := byName(spans)
			root, chat, tool, leaf := m["invoke_agent coord"], m["chat gpt-4.1-mini"], m["execute_tool delegate"], m["invoke_agent leaf"]
			for _, s := range spans {
				if s.TraceID != runID {
					t.Errorf("%s: trace id %s, want the run id %s", s.Name, s.TraceID, runID)
				}
				if s.Resource["service.name"] != "tree-test" {
					t.Errorf("%s: resource %v", s.Name, s.Resource)
				}
			}
			checks := []struct {
				name      string
				got, want string
			}{
				{"root has no parent", root.ParentID, ""},
				{"root id", root.SpanID, "00000000000000a1"},
				{"chat under root", chat.ParentID, root.SpanID},
				{"delegation under root", tool.ParentID, root.SpanID},
				{"sub-agent under the delegation", leaf.ParentID, tool.SpanID},
				{"chat is a client span", chat.Kind, "Client"},
				{"agent spans are internal", leaf.Kind, "Internal"},
				{"tool spans are internal", tool.Kind, "Internal"},
			}
			for _, ck := range checks {
				if ck.got != ck.want {
					t.Errorf("%s: got %q, want %q", ck.name, ck.got, ck.want)
				}
			}
			wantAttrs := map[*got]map[string]any{
				&root: {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "coord", "gen_ai.agent.id": "00000000000000a1",
					"gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4.1-mini", "gen_ai.conversation.id": runID,
					"gen_ai.usage.input_tokens": int64(30), "gen_ai.usage.output_tokens": int64(9)},
				&chat: {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4.1-mini",
					"gen_ai.usage.input_tokens": int64(20), "gen_ai.usage.output_tokens": int64(6), "agentry.retry_attempt": int64(1),
					"gen_ai.response.model": "gpt-4.1-mini-2025-04-14"},
				&tool: {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "delegate", "gen_ai.tool.call.id": "call_1"},
				&leaf: {"gen_ai.provider.name": "anthropic", "gen_ai.request.model": "claude-sonnet-4-5", "error.type": "timeout"},
			}
			for s, want := range wantAttrs {
				for k, v := range want {
					if s.Attrs[k] != v {
						t.Errorf("%s: %s = %#v, want %#v", s.Name, k, s.Attrs[k], v)
					}
				}
			}
			if !leaf.Error || root.Error {
				t.Errorf("status: leaf error %v (want true), root error %v (want false)", leaf.Error, root.Error)
			}
			if len(chat.Events) != 1 || chat.Events[0] != semconv.EventRetry {
				t.Errorf("chat events = %v, want the retry", chat.Events)
			}
			if res, ok := tool.Attrs["gen_ai.tool.call.result"]; ok && res != strings.Repeat("long result ", 2000) {
				t.Errorf("a 24 KB tool result arrived as %d bytes", len(res.(string)))
			}
			if root.Start != time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC).UnixNano() || root.End-root.Start != int64(time.Second) {
				t.Errorf("root times %d..%d, want the stored ones", root.Start, root.End)
			}
			_, hasArgs := tool.Attrs["gen_ai.tool.call.arguments"]
			_, hasTask := root.Attrs["agentry.task"]
			if hasArgs != tc.capture || hasTask != tc.capture {
				t.Errorf("content sent: arguments %v, task %v; capture_content is %v", hasArgs, hasTask, tc.capture)
			}
		})
	}
}

func TestTraceParentMakesTheRunAChildOfTheCallersTrace(t *testing.T) {
	c := startCollector(t)
	const caller = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	e, err := otlp.New(context.Background(), otlp.Config{Endpoint: c.httpURL, Parent: caller})
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range tree() {
		e.RecordSpan(sp)
	}
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans := byName(c.spans(t, 4))
	for _, s := range spans {
		if s.TraceID != "0af7651916cd43dd8448eb211c80319c" {
			t.Errorf("%s: trace %s, want the caller's", s.Name, s.TraceID)
		}
	}
	if p := spans["invoke_agent coord"].ParentID; p != "b7ad6b7169203331" {
		t.Errorf("root's parent = %q, want the caller's span", p)
	}
	if p := spans["invoke_agent leaf"].ParentID; p != "00000000000000a3" {
		t.Errorf("inner parents must stay the stored ones, got %q", p)
	}
}

func TestARootSpansTraceParentPutsThatRunAloneInTheCallersTrace(t *testing.T) {
	c := startCollector(t)
	const caller = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" // an MCP client's _meta
	e, err := otlp.New(context.Background(), otlp.Config{Endpoint: c.httpURL})
	if err != nil {
		t.Fatal(err)
	}
	spans := tree()
	for i := range spans {
		if spans[i].ParentID == "" {
			spans[i].Attributes = map[string]any{otlp.AttrTraceParent: caller}
		}
	}
	other := trace.Span{ID: "00000000000000b1", RunID: "5bf92f3577b34da6a3ce929d0e0e4736", Kind: trace.KindInvokeAgent,
		Name: "invoke_agent other", Agent: "other", Status: trace.StatusOK, StartedAt: time.Now(), EndedAt: time.Now()}
	for _, sp := range append(spans, other) {
		e.RecordSpan(sp)
	}
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := byName(c.spans(t, 5))
	for name, s := range got {
		want := "0af7651916cd43dd8448eb211c80319c"
		if name == "invoke_agent other" {
			want = "5bf92f3577b34da6a3ce929d0e0e4736" // a run without a traceparent keeps its own trace
		}
		if s.TraceID != want {
			t.Errorf("%s: trace %s, want %s", name, s.TraceID, want)
		}
	}
	if p := got["invoke_agent coord"].ParentID; p != "b7ad6b7169203331" {
		t.Errorf("root's parent = %q, want the caller's span", p)
	}
}
