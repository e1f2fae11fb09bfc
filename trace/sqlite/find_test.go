package sqlite_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// findRun is a small run with words in tasks and results, a failed tool call
// and a delegation, for the skeleton and find queries.
func findRun() (trace.Run, []trace.Span) {
	at := func(ms int) time.Time { return tracetestBase.Add(time.Duration(ms) * time.Millisecond) }
	run := trace.Run{ID: "r", Agent: "coord", Status: trace.StatusOK, StartedAt: at(0), EndedAt: at(100)}
	return run, []trace.Span{
		{ID: "root", RunID: "r", Kind: trace.KindInvokeAgent, Name: "invoke_agent coord", Agent: "coord", Status: trace.StatusOK,
			StartedAt: at(0), EndedAt: at(100), Attributes: map[string]any{semconv.AttrTask: "Compare the quarterly sales"}},
		{ID: "del", RunID: "r", ParentID: "root", Kind: trace.KindExecuteTool, Name: "execute_tool delegate", Agent: "coord",
			Status: trace.StatusOK, StartedAt: at(10), EndedAt: at(60), Error: "long text",
			Attributes: map[string]any{semconv.AttrTargetAgent: "analyst", semconv.AttrQueuedMS: 5.0, "big": "x"}},
		{ID: "w", RunID: "r", ParentID: "del", Kind: trace.KindInvokeAgent, Name: "invoke_agent analyst", Agent: "analyst",
			Status: trace.StatusOK, StartedAt: at(15), EndedAt: at(55),
			Attributes: map[string]any{semconv.AttrTask: "Q4 numbers", semconv.AttrResult: "Sales rose by 12% (Q4)"}},
		{ID: "rd", RunID: "r", ParentID: "w", Kind: trace.KindExecuteTool, Name: "execute_tool filesystem.read_file", Agent: "analyst",
			Status: trace.StatusError, StartedAt: at(20), EndedAt: at(21), Attributes: map[string]any{semconv.AttrResult: "no such file"}},
		{ID: "c", RunID: "r", ParentID: "w", Kind: trace.KindChat, Name: "chat demo", Agent: "analyst", Status: trace.StatusRunning,
			StartedAt: at(30), Attributes: map[string]any{semconv.AttrRetryAttempt: 2, semconv.AttrCostUSD: 0.0125, semconv.AttrCachedInputTokens: 600, semconv.AttrModel: "demo"},
			Events: []trace.Event{{Time: at(31), Name: semconv.EventRetry}}},
	}
}

func TestSkeletonReadsWhatARowNeedsInStartOrder(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	run, spans := findRun()
	if err := s.Apply(t.Context(), []trace.Run{run}, spans); err != nil {
		t.Fatal(err)
	}
	got, cursor, err := s.Skeleton(t.Context(), "r")
	if err != nil || len(got) != len(spans) {
		t.Fatalf("Skeleton = %d spans, %v", len(got), err)
	}
	for i, sp := range got {
		if sp.ID != spans[i].ID || sp.Kind != spans[i].Kind || sp.Status != spans[i].Status || !sp.StartedAt.Equal(spans[i].StartedAt) {
			t.Errorf("span %d = %+v, want %s", i, sp, spans[i].ID)
		}
	}
	if d := got[1]; d.Error != "" || len(d.Attributes) != 2 || d.Attributes[semconv.AttrTargetAgent] != "analyst" || d.Attributes[semconv.AttrQueuedMS] != 5.0 {
		t.Errorf("delegation skeleton = error %q, attributes %v; want the target and the wait only", d.Error, d.Attributes)
	}
	if c := got[4]; c.Attributes[semconv.AttrRetryAttempt] != 2.0 || len(c.Events) != 1 || len(c.Attributes) != 3 ||
		c.Attributes[semconv.AttrCostUSD] != 0.0125 || c.Attributes[semconv.AttrCachedInputTokens] != 600.0 {
		t.Errorf("running chat skeleton = %v, %d events; want its retry attempt, cost, cached tokens and events", c.Attributes, len(c.Events))
	}
	if got[2].Attributes != nil {
		t.Errorf("an agent's task and result came along: %v", got[2].Attributes)
	}
	if changed, _, err := s.SpansSince(t.Context(), "r", cursor); err != nil || len(changed) != 0 {
		t.Errorf("SpansSince(skeleton's cursor) = %d spans, %v; want none", len(changed), err)
	}
	one, err := s.Span(t.Context(), "r", "del")
	if err != nil || one.Error != "long text" || one.Attributes["big"] != "x" {
		t.Errorf("Span = %+v, %v; want it whole", one, err)
	}
	if _, err := s.Span(t.Context(), "r", "nope"); !errorsIsNotFound(err) {
		t.Errorf("Span of an unknown span: %v", err)
	}
}

func TestFindSpansUsesTheTextIndexAndKeepsItCurrent(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	run, spans := findRun()
	if err := s.Apply(t.Context(), []trace.Run{run}, spans); err != nil {
		t.Fatal(err)
	}
	find := func(q trace.SpanQuery) []string {
		t.Helper()
		ids, err := s.FindSpans(t.Context(), "r", q)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(ids)
		return ids
	}
	for _, c := range []struct {
		q    trace.SpanQuery
		want []string
	}{
		{trace.SpanQuery{Text: "sales"}, []string{"root", "w"}},
		{trace.SpanQuery{Text: "SALES rose"}, []string{"w"}},
		{trace.SpanQuery{Text: `12% "(Q4)" AND`}, nil}, // "and" is nowhere: every word must be there
		{trace.SpanQuery{Text: `12% (Q4)`}, []string{"w"}},
		{trace.SpanQuery{Agent: "analyst"}, []string{"c", "rd", "w"}},
		{trace.SpanQuery{Status: trace.StatusError}, []string{"rd"}},
		{trace.SpanQuery{Tool: "filesystem.read_file", Text: "file"}, []string{"rd"}},
		{trace.SpanQuery{Agent: "coord", Text: "numbers"}, nil},
	} {
		if got := find(c.q); !slices.Equal(got, c.want) {
			t.Errorf("find %+v = %v, want %v", c.q, got, c.want)
		}
	}
	// A span written after the first search is found by the next one, and
	// a changed result loses its old words.
	spans[3].Attributes[semconv.AttrResult] = "permission refused"
	late := trace.Span{ID: "late", RunID: "r", ParentID: "root", Kind: trace.KindChat, Name: "chat demo", Agent: "coord",
		Status: trace.StatusOK, StartedAt: run.StartedAt, Attributes: map[string]any{semconv.AttrResult: "no such luck"}}
	if err := s.Apply(t.Context(), nil, []trace.Span{spans[3], late}); err != nil {
		t.Fatal(err)
	}
	if got := find(trace.SpanQuery{Text: "no such"}); !slices.Equal(got, []string{"late"}) {
		t.Errorf("after the run changed, find \"no such\" = %v, want [late]", got)
	}
	// Deleting the run takes its index along: an import under its ID is found anew.
	if err := s.Delete(t.Context(), "r"); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(t.Context(), []trace.Run{run}, spans[:1]); err != nil {
		t.Fatal(err)
	}
	if got := find(trace.SpanQuery{Text: "quarterly"}); !slices.Equal(got, []string{"root"}) {
		t.Errorf("after delete and re-import, find = %v, want [root]", got)
	}
}

func errorsIsNotFound(err error) bool { return errors.Is(err, trace.ErrNotFound) }
