package sqlite_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/conversation"
	"github.com/agentry/agentry/trace/sqlite"
	"github.com/agentry/agentry/trace/tracetest"
)

// openTemp opens a fresh database in the test's temp dir.
func openTemp(t *testing.T) (*sqlite.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "traces.db")
	s, err := sqlite.Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s, path
}

func TestConformance(t *testing.T) {
	tracetest.RunStoreTests(t, func(t *testing.T) trace.Store {
		s, _ := openTemp(t)
		return s
	})
}

// tracetestBase is a fixed instant with microseconds.
var tracetestBase = time.Date(2026, 11, 3, 14, 5, 9, 123456000, time.UTC)

func TestLargeReadsKeepOrderAndAttributes(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	const n = 1300 // more than two decoding chunks
	spans := make([]trace.Span, n)
	for i := range spans {
		spans[i] = trace.Span{ID: fmt.Sprintf("s%04d", i), RunID: "r", Kind: trace.KindChat, Status: trace.StatusOK,
			StartedAt: tracetestBase.Add(time.Duration(n-i) * time.Millisecond), Attributes: map[string]any{"i": i}}
	}
	if err := s.Apply(t.Context(), []trace.Run{{ID: "r", StartedAt: tracetestBase}}, spans); err != nil {
		t.Fatal(err)
	}
	got, err := s.Spans(t.Context(), "r")
	if err != nil || len(got) != n {
		t.Fatalf("Spans = %d, %v", len(got), err)
	}
	for k, sp := range got { // newest-last insertion, so start order is reversed
		i := n - 1 - k
		if sp.ID != spans[i].ID || sp.Attributes["i"] != float64(i) {
			t.Fatalf("position %d: %s with %v, want %s with i=%d", k, sp.ID, sp.Attributes, spans[i].ID, i)
		}
	}
	doc, err := s.Export(t.Context(), "r")
	if err != nil || len(doc.Spans) != n || doc.Spans[n-1].Attributes["i"] != 0.0 {
		t.Fatalf("Export = %d spans, %v", len(doc.Spans), err)
	}
}

func TestApprovalConformance(t *testing.T) {
	tracetest.RunApprovalTests(t, func(t *testing.T) approval.Store {
		s, _ := openTemp(t)
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestConversationConformance(t *testing.T) {
	tracetest.RunConversationTests(t, func(t *testing.T) conversation.Store {
		s, _ := openTemp(t)
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// One Apply whose spans take every statement the writer has: whole
// statements of one run, of two runs interleaved, and single rows at the
// end. Each run reads back exactly its spans, in the order written, with
// their change numbers in that order too.
func TestApplyMixesRunsInOneBatch(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	var spans []trace.Span
	add := func(run string, n int) {
		for range n {
			i := len(spans)
			spans = append(spans, trace.Span{ID: fmt.Sprintf("s%04d", i), RunID: run, ParentID: "p", Kind: trace.KindChat,
				Name: "chat", Agent: "a", Depth: i % 3, Status: trace.StatusOK, StartedAt: tracetestBase.Add(time.Duration(i) * time.Millisecond),
				EndedAt: tracetestBase.Add(time.Second), InputTokens: int64(i), Attributes: map[string]any{"i": i}})
		}
	}
	add("a", 64)
	for range 40 {
		add("a", 1)
		add("b", 1)
	}
	add("b", 5)
	if err := s.Apply(t.Context(), []trace.Run{{ID: "a", StartedAt: tracetestBase}, {ID: "b", StartedAt: tracetestBase}}, spans); err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{"a", "b"} {
		var want []trace.Span
		for _, sp := range spans {
			if sp.RunID == run {
				want = append(want, sp)
			}
		}
		got, _, err := s.SpansSince(t.Context(), run, 0)
		if err != nil || len(got) != len(want) {
			t.Fatalf("run %s: %d spans, %v; want %d", run, len(got), err, len(want))
		}
		for i, sp := range got {
			w := want[i]
			if sp.ID != w.ID || sp.Depth != w.Depth || sp.InputTokens != w.InputTokens || !sp.StartedAt.Equal(w.StartedAt) ||
				sp.Attributes["i"] != float64(w.Attributes["i"].(int)) {
				t.Fatalf("run %s, change %d: got %+v, want %+v", run, i, sp, w)
			}
		}
	}
}

// A batch of many new runs takes their keys several at a time; every span
// must still land in its own run, with runs interleaved and some known from
// an earlier batch.
func TestManyNewRunsInOneBatch(t *testing.T) {
	s, path := openTemp(t)
	defer s.Close()
	span := func(run, id string) trace.Span {
		return trace.Span{ID: id, RunID: run, Kind: trace.KindChat, Status: trace.StatusOK, StartedAt: tracetestBase}
	}
	if err := s.Apply(t.Context(), nil, []trace.Span{span("r000", "old")}); err != nil {
		t.Fatal(err)
	}
	const runs = 75 // two whole statements of keys and some left over
	var batch []trace.Span
	for i := range runs {
		for j := range 2 { // each run twice, the second time after others
			batch = append(batch, span(fmt.Sprintf("r%03d", i), fmt.Sprintf("s%d", j)))
		}
		if i > 0 {
			batch[len(batch)-1], batch[len(batch)-3] = batch[len(batch)-3], batch[len(batch)-1]
		}
	}
	if err := s.Apply(t.Context(), nil, batch); err != nil {
		t.Fatal(err)
	}
	// A second store on the file learns the keys from the database.
	s2, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	for _, st := range []*sqlite.Store{s, s2} {
		for i := range runs {
			run := fmt.Sprintf("r%03d", i)
			got, err := st.Spans(t.Context(), run)
			want := 2
			if i == 0 {
				want = 3
			}
			if err != nil || len(got) != want {
				t.Fatalf("Spans(%s) = %d, %v; want %d", run, len(got), err, want)
			}
			for _, sp := range got {
				if sp.RunID != run {
					t.Fatalf("span %s of %s read as of %s", sp.ID, run, sp.RunID)
				}
			}
		}
	}
}

func TestVersionConformance(t *testing.T) {
	tracetest.RunVersionTests(t, func(t *testing.T) trace.Store {
		s, _ := openTemp(t)
		return s
	})
}
