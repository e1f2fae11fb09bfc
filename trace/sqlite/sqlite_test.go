package sqlite_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/sqlite"
	"github.com/agentry/agentry/trace/tracetest"
	"time"
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
	tracetest.RunApprovalTests(t, func(t *testing.T) trace.ApprovalStore {
		s, _ := openTemp(t)
		t.Cleanup(func() { s.Close() })
		return s
	})
}
