package tracetest

import (
	"slices"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// tree is a small delegation: coordinator chats, delegates to analyst, who
// chats and fails a tool call; applied deliberately out of start order.
func tree(runID string) (trace.Run, []trace.Span) {
	r := run(runID, "coordinator", "Q4 trends", 0)
	root := span(runID, "root", "", trace.KindInvokeAgent, "coordinator", 0, 900)
	chat1 := span(runID, "chat1", "root", trace.KindChat, "coordinator", 10, 110)
	chat1.InputTokens, chat1.OutputTokens = 100, 20
	chat1.Events = []trace.Event{{Time: at(60), Name: semconv.EventRetry, Attributes: map[string]any{
		semconv.EventAttrAttempt: 1, semconv.EventAttrWaitMS: int64(50), semconv.EventAttrError: "429 Too Many Requests"}}}
	deleg := span(runID, "deleg", "root", trace.KindExecuteTool, "coordinator", 120, 800)
	deleg.Attributes = map[string]any{
		semconv.AttrTargetAgent: "analyst", semconv.AttrContextMode: "task_only",
		semconv.AttrDelegationStatus: "ok", semconv.AttrRetryAttempt: 1,
		semconv.AttrEffectiveTools: []string{"web.fetch", "filesystem.read_file"},
	}
	deleg.Events = []trace.Event{
		{Time: at(121), Name: semconv.EventQueued, Attributes: map[string]any{semconv.EventAttrCap: semconv.CapRun, semconv.EventAttrLimit: 1}},
		{Time: at(125), Name: semconv.EventAdmitted}, // an event may have no attributes
	}
	child := span(runID, "child", "deleg", trace.KindInvokeAgent, "analyst", 130, 790)
	child.Depth = 1
	chat2 := span(runID, "chat2", "child", trace.KindChat, "analyst", 140, 400)
	chat2.Depth, chat2.InputTokens, chat2.OutputTokens = 1, 50, 8
	tool := span(runID, "tool", "child", trace.KindExecuteTool, "analyst", 410, 420)
	tool.Depth, tool.Status, tool.Error = 1, trace.StatusDenied, "web.fetch denied by global"
	return r, []trace.Span{chat2, root, tool, deleg, chat1, child}
}

// inStartOrder is tree's spans as a store returns them, attributes (of
// spans and events) as JSON decodes them.
func inStartOrder(spans []trace.Span) []trace.Span {
	out := slices.Clone(spans)
	slices.SortFunc(out, func(a, b trace.Span) int { return a.StartedAt.Compare(b.StartedAt) })
	for i, sp := range out {
		if sp.ID == "deleg" {
			out[i].Attributes = map[string]any{
				semconv.AttrTargetAgent: "analyst", semconv.AttrContextMode: "task_only",
				semconv.AttrDelegationStatus: "ok", semconv.AttrRetryAttempt: float64(1),
				semconv.AttrEffectiveTools: []any{"web.fetch", "filesystem.read_file"},
			}
			out[i].Events = slices.Clone(sp.Events)
			out[i].Events[0].Attributes = map[string]any{semconv.EventAttrCap: semconv.CapRun, semconv.EventAttrLimit: float64(1)}
		}
		if sp.ID == "chat1" {
			out[i].Events = slices.Clone(sp.Events)
			out[i].Events[0].Attributes = map[string]any{
				semconv.EventAttrAttempt: float64(1), semconv.EventAttrWaitMS: float64(50), semconv.EventAttrError: "429 Too Many Requests"}
		}
	}
	return out
}

// storedTree applies tree(runID) to s and returns its spans as written.
func storedTree(t *testing.T, s trace.Store, runID string) []trace.Span {
	t.Helper()
	r, spans := tree(runID)
	mustApply(t, s, []trace.Run{r}, spans)
	return spans
}

func testSpansInOrder(t *testing.T, s trace.Store) {
	spans := storedTree(t, s, "r1")
	got, err := s.Spans(ctx(t), "r1")
	if err != nil {
		t.Fatalf("Spans: %v", err)
	}
	checkSpans(t, got, inStartOrder(spans))
	for _, sp := range got {
		if sp.StartedAt.Location() != time.UTC {
			t.Errorf("span %s StartedAt in %v, want UTC", sp.ID, sp.StartedAt.Location())
		}
	}
}

func testStartTiesKeepInsertionOrder(t *testing.T, s trace.Store) {
	a := span("r1", "zz-first", "", trace.KindChat, "x", 5, -1)
	b := span("r1", "aa-second", "", trace.KindChat, "x", 5, -1)
	early := span("r1", "mm-early", "", trace.KindChat, "x", 1, 2)
	mustApply(t, s, nil, []trace.Span{a})
	mustApply(t, s, nil, []trace.Span{b, early})
	a.Status, a.EndedAt = trace.StatusOK, at(9) // a later write must not move it
	mustApply(t, s, nil, []trace.Span{a})
	got, err := s.Spans(ctx(t), "r1")
	if err != nil {
		t.Fatalf("Spans: %v", err)
	}
	checkSpans(t, got, []trace.Span{early, a, b})
}

func testSpanBeforeRun(t *testing.T, s trace.Store) {
	sp := span("r1", "s1", "", trace.KindInvokeAgent, "a", 0, -1)
	mustApply(t, s, nil, []trace.Span{sp})
	mustApply(t, s, []trace.Run{run("r1", "a", "t", 0)}, nil)
	got, err := s.Spans(ctx(t), "r1")
	if err != nil {
		t.Fatalf("Spans: %v", err)
	}
	checkSpans(t, got, []trace.Span{sp})
}

func testSpanReplaced(t *testing.T, s trace.Store) {
	sp := span("r1", "s1", "", trace.KindChat, "a", 0, -1)
	sp.Attributes = map[string]any{semconv.AttrModel: "demo"}
	mustApply(t, s, nil, []trace.Span{sp})
	sp.Status, sp.EndedAt, sp.InputTokens, sp.Error = trace.StatusTimeout, at(30), 9, "deadline"
	sp.Attributes = map[string]any{semconv.AttrModel: "demo", semconv.AttrRetryAttempt: 2.0}
	sp.Events = []trace.Event{{Time: at(10), Name: semconv.EventRetry, Attributes: map[string]any{semconv.EventAttrWaitMS: 5.0}}}
	mustApply(t, s, nil, []trace.Span{sp})
	got, err := s.Spans(ctx(t), "r1")
	if err != nil {
		t.Fatalf("Spans: %v", err)
	}
	checkSpans(t, got, []trace.Span{sp})
	sp.Events = append(sp.Events, trace.Event{Time: at(20), Name: "second"})
	mustApply(t, s, nil, []trace.Span{sp})
	got, err = s.Spans(ctx(t), "r1")
	if err != nil {
		t.Fatalf("Spans: %v", err)
	}
	checkSpans(t, got, []trace.Span{sp})
}

func testSpansSince(t *testing.T, s trace.Store) {
	a := span("r1", "a", "", trace.KindInvokeAgent, "x", 0, -1)
	b := span("r1", "b", "a", trace.KindChat, "x", 1, -1)
	other := span("r2", "a", "", trace.KindInvokeAgent, "y", 0, -1)
	mustApply(t, s, nil, []trace.Span{a, b})

	got, cur, err := s.SpansSince(ctx(t), "r1", 0)
	if err != nil {
		t.Fatalf("SpansSince: %v", err)
	}
	if ids := spanIDs(got); !slices.Equal(ids, []string{"a", "b"}) || cur <= 0 {
		t.Fatalf("from 0: %v cursor %d; want [a b] and a positive cursor", ids, cur)
	}
	got, cur2, err := s.SpansSince(ctx(t), "r1", cur)
	if err != nil || len(got) != 0 || cur2 != cur {
		t.Fatalf("nothing changed: %v cursor %d err %v; want none and cursor %d", spanIDs(got), cur2, err, cur)
	}
	b.Status, b.EndedAt = trace.StatusOK, at(5)
	c := span("r1", "c", "a", trace.KindChat, "x", 6, -1)
	mustApply(t, s, nil, []trace.Span{other})
	mustApply(t, s, nil, []trace.Span{b})
	mustApply(t, s, nil, []trace.Span{c})
	got, cur3, err := s.SpansSince(ctx(t), "r1", cur)
	if err != nil {
		t.Fatalf("SpansSince: %v", err)
	}
	checkSpans(t, got, []trace.Span{b, c})
	if cur3 <= cur {
		t.Errorf("cursor did not advance: %d after %d", cur3, cur)
	}
}

func testRollup(t *testing.T, s trace.Store) {
	storedTree(t, s, "r1")
	got, err := s.Rollup(ctx(t), "r1")
	if err != nil {
		t.Fatalf("Rollup: %v", err)
	}
	want := []trace.AgentRollup{
		{Agent: "coordinator", Invocations: 1, ModelCalls: 1, ToolCalls: 1, Duration: 900 * time.Millisecond, InputTokens: 100, OutputTokens: 20},
		{Agent: "analyst", Invocations: 1, ModelCalls: 1, ToolCalls: 1, Duration: 660 * time.Millisecond, InputTokens: 50, OutputTokens: 8, Errors: 1},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Rollup =\n%+v\nwant\n%+v", got, want)
	}
	if none, err := s.Rollup(ctx(t), "nope"); err != nil || len(none) != 0 {
		t.Errorf("Rollup(nope) = %v, %v; want none", none, err)
	}
}
