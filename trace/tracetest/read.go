package tracetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// readTests are the suite's cases for the reads the run page makes on big
// runs: Skeleton, Span and FindSpans.
var readTests = []testCase[trace.Store]{
	{"the skeleton is Spans cut down to what a row needs", testSkeletonAgreesWithSpans},
	{"the skeleton's cursor follows on with SpansSince", testSkeletonCursor},
	{"one span reads whole or is not found", testSpanReadsOneWhole},
	{"find matches agent status tool and words", testFindMatches},
	{"find sees spans written after a first search", testFindSeesLaterWrites},
	{"a deleted run leaves nothing to find", testFindAfterDelete},
	{"a span with megabytes of words is written and found", testFindLongText},
}

// readTree is tree with words in tasks and results, an error text, the
// versions and tags the run page shows, and a running chat that is
// retrying, for the skeleton and find.
func readTree(runID string) (trace.Run, []trace.Span) {
	r, spans := tree(runID)
	for i := range spans {
		sp := &spans[i]
		switch sp.ID {
		case "root":
			sp.Attributes = map[string]any{semconv.AttrTask: "Compare the quarterly SALES", semconv.AttrResult: "Sales rose; see the analyst's notes.",
				semconv.AttrAgentVersion: "5e1f", semconv.AttrReplayOf: "r0", semconv.AttrEvalSuite: "sales", semconv.AttrEvalCase: "q4"}
		case "child":
			sp.Attributes = map[string]any{semconv.AttrTask: "Q4 numbers, by region", semconv.AttrResult: "Sales rose by 12% (Q4) in the Überblick",
				semconv.AttrAgentVersion: "0123"} // all digits, and still text
		case "tool":
			sp.Name = "execute_tool web.fetch"
			sp.Attributes = map[string]any{semconv.AttrResult: "no such page: https://example.com/q4-report",
				semconv.AttrAgentVersion: "not an invocation's"} // left out of the skeleton
		}
	}
	retrying := span(runID, "retrying", "child", trace.KindChat, "analyst", 430, -1)
	retrying.Depth = 1
	retrying.Attributes = map[string]any{semconv.AttrRetryAttempt: 2, semconv.AttrModel: "demo", semconv.AttrResult: "partial",
		semconv.AttrCostUSD: 0.0125, semconv.AttrCachedInputTokens: 40}
	retrying.Events = []trace.Event{{Time: at(431), Name: semconv.EventRetry, Attributes: map[string]any{semconv.EventAttrWaitMS: 5.0}}}
	return r, append(spans, retrying)
}

func readable(t *testing.T, s trace.Store, runID string) []trace.Span {
	t.Helper()
	r, spans := readTree(runID)
	mustApply(t, s, []trace.Run{r}, spans)
	whole, err := s.Spans(ctx(t), runID)
	if err != nil {
		t.Fatalf("Spans: %v", err)
	}
	return whole
}

func testSkeletonAgreesWithSpans(t *testing.T, s trace.Store) {
	whole := readable(t, s, "r1")
	readable(t, s, "r2") // same span IDs in another run must not leak in
	got, _, err := s.Skeleton(ctx(t), "r1")
	if err != nil {
		t.Fatalf("Skeleton: %v", err)
	}
	want := make([]trace.Span, len(whole))
	for i, sp := range whole {
		want[i] = trace.SkeletonOf(sp)
	}
	checkSpans(t, got, want)
	for _, sp := range got {
		if sp.Attributes != nil && len(sp.Attributes) == 0 {
			t.Errorf("span %s: empty attributes are not nil", sp.ID)
		}
	}
	if none, _, err := s.Skeleton(ctx(t), "nope"); err != nil || len(none) != 0 {
		t.Errorf("Skeleton(nope) = %v, %v; want none and no error", spanIDs(none), err)
	}
}

func testSkeletonCursor(t *testing.T, s trace.Store) {
	readable(t, s, "r1")
	_, cursor, err := s.Skeleton(ctx(t), "r1")
	if err != nil {
		t.Fatalf("Skeleton: %v", err)
	}
	if changed, _, err := s.SpansSince(ctx(t), "r1", cursor); err != nil || len(changed) != 0 {
		t.Errorf("SpansSince(skeleton's cursor) = %v, %v; want nothing", spanIDs(changed), err)
	}
	late := span("r1", "late", "root", trace.KindChat, "coordinator", 950, -1)
	mustApply(t, s, nil, []trace.Span{late})
	changed, _, err := s.SpansSince(ctx(t), "r1", cursor)
	if err != nil {
		t.Fatalf("SpansSince: %v", err)
	}
	checkSpans(t, changed, []trace.Span{late})
}

func testSpanReadsOneWhole(t *testing.T, s trace.Store) {
	whole := readable(t, s, "r1")
	r2, spans2 := readTree("r2")
	spans2[0].Agent = "other" // r2's chat2 differs from r1's
	mustApply(t, s, []trace.Run{r2}, spans2)
	for _, want := range whole {
		got, err := s.Span(ctx(t), "r1", want.ID)
		if err != nil {
			t.Fatalf("Span(%s): %v", want.ID, err)
		}
		checkSpans(t, []trace.Span{got}, []trace.Span{want})
	}
	for _, c := range [][2]string{{"r1", "nope"}, {"nope", "root"}, {"", ""}} {
		if got, err := s.Span(ctx(t), c[0], c[1]); !errors.Is(err, trace.ErrNotFound) {
			t.Errorf("Span(%q, %q) = %+v, %v; want ErrNotFound", c[0], c[1], got, err)
		}
	}
}

func find(t *testing.T, s trace.Store, runID string, q trace.SpanQuery) []string {
	t.Helper()
	ids, err := s.FindSpans(ctx(t), runID, q)
	if err != nil {
		t.Fatalf("FindSpans(%+v): %v", q, err)
	}
	slices.Sort(ids)
	return ids
}

func testFindMatches(t *testing.T, s trace.Store) {
	readable(t, s, "r1")
	r2, spans2 := readTree("r2") // the same words in another run are not found
	mustApply(t, s, []trace.Run{r2}, spans2)
	all := []string{"chat1", "chat2", "child", "deleg", "retrying", "root", "tool"}
	for _, c := range []struct {
		q    trace.SpanQuery
		want []string
	}{
		{trace.SpanQuery{}, all},
		{trace.SpanQuery{Text: "  ;; - "}, all}, // no words: nothing to match
		{trace.SpanQuery{Text: "sales"}, []string{"child", "root"}},
		{trace.SpanQuery{Text: "sale"}, nil}, // whole words, not prefixes
		{trace.SpanQuery{Text: "SALES Rose"}, []string{"child", "root"}},
		{trace.SpanQuery{Text: "quarterly analyst"}, []string{"root"}}, // one in the task, one in the result
		{trace.SpanQuery{Text: "quarterly region"}, nil},               // every word in one span
		{trace.SpanQuery{Text: `12% "(q4)"`}, []string{"child"}},       // punctuation is not syntax
		{trace.SpanQuery{Text: `12 OR nothing`}, nil},
		{trace.SpanQuery{Text: `sales -rose`}, []string{"child", "root"}},
		{trace.SpanQuery{Text: "überblick"}, []string{"child"}},
		{trace.SpanQuery{Text: "example com report"}, []string{"tool"}}, // a URL's words are words
		{trace.SpanQuery{Text: "partial"}, []string{"retrying"}},
		{trace.SpanQuery{Agent: "analyst"}, []string{"chat2", "child", "retrying", "tool"}},
		{trace.SpanQuery{Agent: "Analyst"}, nil},
		{trace.SpanQuery{Status: trace.StatusDenied}, []string{"tool"}},
		{trace.SpanQuery{Status: trace.StatusRunning}, []string{"retrying"}},
		{trace.SpanQuery{Tool: "web.fetch"}, []string{"tool"}},
		{trace.SpanQuery{Tool: "web"}, nil},
		{trace.SpanQuery{Tool: "web.fetch", Text: "page", Agent: "analyst", Status: trace.StatusDenied}, []string{"tool"}},
		{trace.SpanQuery{Agent: "coordinator", Text: "numbers"}, nil},
	} {
		if got := find(t, s, "r1", c.q); !slices.Equal(got, c.want) {
			t.Errorf("find %+v = %v, want %v", c.q, got, c.want)
		}
	}
	if got := find(t, s, "nope", trace.SpanQuery{Text: "sales"}); len(got) != 0 {
		t.Errorf("find in an unknown run = %v", got)
	}
}

func testFindSeesLaterWrites(t *testing.T, s trace.Store) {
	whole := readable(t, s, "r1")
	if got := find(t, s, "r1", trace.SpanQuery{Text: "sales"}); !slices.Equal(got, []string{"child", "root"}) {
		t.Fatalf("first find = %v", got)
	}
	// After that search: a span changes its result, one is new, and the
	// running chat ends with a result.
	var child, retrying trace.Span
	for _, sp := range whole {
		switch sp.ID {
		case "child":
			child = sp
		case "retrying":
			retrying = sp
		}
	}
	child.Attributes = map[string]any{semconv.AttrTask: "Q4 numbers, by region", semconv.AttrResult: "permission refused"}
	late := span("r1", "late", "root", trace.KindInvokeAgent, "writer", 950, 990)
	late.Attributes = map[string]any{semconv.AttrTask: "Draft the sales memo"}
	retrying.Status, retrying.EndedAt = trace.StatusOK, at(500)
	retrying.Attributes = map[string]any{semconv.AttrResult: "Sales memo drafted"}
	mustApply(t, s, nil, []trace.Span{child, late})
	mustApply(t, s, nil, []trace.Span{retrying})
	for _, c := range []struct {
		q    trace.SpanQuery
		want []string
	}{
		{trace.SpanQuery{Text: "sales"}, []string{"late", "retrying", "root"}},
		{trace.SpanQuery{Text: "sales memo"}, []string{"late", "retrying"}},
		{trace.SpanQuery{Text: "überblick"}, nil},
		{trace.SpanQuery{Text: "partial"}, nil},
		{trace.SpanQuery{Text: "REFUSED"}, []string{"child"}},
		{trace.SpanQuery{Agent: "writer", Text: "draft"}, []string{"late"}},
	} {
		if got := find(t, s, "r1", c.q); !slices.Equal(got, c.want) {
			t.Errorf("after later writes, find %+v = %v, want %v", c.q, got, c.want)
		}
	}
}

func testFindAfterDelete(t *testing.T, s trace.Store) {
	readable(t, s, "r1")
	readable(t, s, "r2")
	if got := find(t, s, "r1", trace.SpanQuery{Text: "quarterly"}); !slices.Equal(got, []string{"root"}) {
		t.Fatalf("first find = %v", got)
	}
	if err := s.Delete(ctx(t), "r1"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if got := find(t, s, "r1", trace.SpanQuery{Text: "quarterly"}); len(got) != 0 {
		t.Errorf("find in a deleted run = %v", got)
	}
	if sk, _, err := s.Skeleton(ctx(t), "r1"); err != nil || len(sk) != 0 {
		t.Errorf("Skeleton of a deleted run = %v, %v", spanIDs(sk), err)
	}
	if _, err := s.Span(ctx(t), "r1", "root"); !errors.Is(err, trace.ErrNotFound) {
		t.Errorf("Span of a deleted run: %v, want ErrNotFound", err)
	}
	// A run imported under the deleted one's ID is found by its own words only.
	r, spans := run("r1", "lead", "again", 0), []trace.Span{span("r1", "root", "", trace.KindInvokeAgent, "lead", 0, 5)}
	spans[0].Attributes = map[string]any{semconv.AttrTask: "Annual outlook"}
	mustApply(t, s, []trace.Run{r}, spans)
	if got := find(t, s, "r1", trace.SpanQuery{Text: "quarterly"}); len(got) != 0 {
		t.Errorf("after re-import, old words found in %v", got)
	}
	if got := find(t, s, "r1", trace.SpanQuery{Text: "outlook"}); !slices.Equal(got, []string{"root"}) {
		t.Errorf("after re-import, find outlook = %v, want [root]", got)
	}
	if got := find(t, s, "r2", trace.SpanQuery{Text: "quarterly"}); !slices.Equal(got, []string{"root"}) {
		t.Errorf("the other run's index went with the deleted one: %v", got)
	}
}

// A tool may return a book; writing its span must not fail, whatever the
// store's index holds, and the words at its start are found.
func testFindLongText(t *testing.T, s trace.Store) {
	var b strings.Builder
	b.WriteString("Opening words. ")
	for i := 0; b.Len() < 3<<20; i++ {
		fmt.Fprintf(&b, "w%d ", i)
	}
	sp := span("r1", "book", "", trace.KindInvokeAgent, "reader", 0, 10)
	sp.Attributes = map[string]any{semconv.AttrTask: "Read it", semconv.AttrResult: b.String()}
	mustApply(t, s, []trace.Run{run("r1", "reader", "Read it", 0)}, []trace.Span{sp})
	if got := find(t, s, "r1", trace.SpanQuery{Text: "opening w1 words"}); !slices.Equal(got, []string{"book"}) {
		t.Errorf("find in a 3 MB result = %v, want [book]", got)
	}
	if got, err := s.Span(ctx(t), "r1", "book"); err != nil || got.Attributes[semconv.AttrResult] != b.String() {
		t.Errorf("Span = %d bytes of result, %v; want it whole", len(fmt.Sprint(got.Attributes[semconv.AttrResult])), err)
	}
}
