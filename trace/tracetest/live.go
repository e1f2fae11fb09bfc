package tracetest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/agentry/agentry/trace"
)

// testSpanTwiceInOneApply writes a span's start and end in one batch, with
// another span between: the end state is kept, at the place of the start.
func testSpanTwiceInOneApply(t *testing.T, s trace.Store) {
	a := span("r1", "a", "", trace.KindChat, "x", 5, -1)
	b := span("r1", "b", "", trace.KindChat, "x", 5, 7)
	aEnd := a
	aEnd.Status, aEnd.EndedAt, aEnd.OutputTokens = trace.StatusOK, at(9), 3
	mustApply(t, s, []trace.Run{run("r1", "x", "t", 0), run("r1", "x", "t2", 0)}, []trace.Span{a, b, aEnd})
	got, err := s.Spans(ctx(t), "r1")
	if err != nil {
		t.Fatalf("Spans: %v", err)
	}
	checkSpans(t, got, []trace.Span{aEnd, b})
	if r, err := s.Run(ctx(t), "r1"); err != nil || r.Task != "t2" {
		t.Errorf("Run = %+v, %v; want the last of the run's two states (task t2)", r, err)
	}
}

// testPollerMissesNothingWithTwoWriters follows one run with SpansSince
// while two writers write it at once, as two processes (or two workers)
// may: each batch starts spans and ends the previous batch's. A cursor that
// steps over a change committed late would leave a span running in the
// poller's copy for good.
func testPollerMissesNothingWithTwoWriters(t *testing.T, s trace.Store) {
	const batches, perBatch = 150, 4
	mustApply(t, s, []trace.Run{run("r1", "x", "t", 0)}, nil)
	seen := map[string]trace.Span{}
	var cursor int64
	poll := func() {
		got, next, err := s.SpansSince(ctx(t), "r1", cursor)
		if err != nil {
			t.Errorf("SpansSince: %v", err)
			return
		}
		for _, sp := range got {
			seen[sp.ID] = sp
		}
		cursor = next
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	for w := range 2 {
		wg.Go(func() {
			var open []trace.Span
			for i := range batches + 1 {
				var batch []trace.Span
				for _, sp := range open {
					sp.Status, sp.EndedAt = trace.StatusOK, at(i)
					batch = append(batch, sp)
				}
				open = open[:0]
				for j := range perBatch * min(1, batches-i) {
					sp := span("r1", fmt.Sprintf("w%d-%d-%d", w, i, j), "", trace.KindChat, "x", i, -1)
					batch, open = append(batch, sp), append(open, sp)
				}
				if err := s.Apply(ctx(t), nil, batch); err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		})
	}
	go func() { wg.Wait(); close(done) }()
	for polling := true; polling; {
		select {
		case <-done:
			polling = false
		default:
		}
		poll()
	}
	poll() // what the last commits wrote
	all, err := s.Spans(ctx(t), "r1")
	if err != nil {
		t.Fatalf("Spans: %v", err)
	}
	if len(all) != 2*batches*perBatch {
		t.Fatalf("store has %d spans, want %d", len(all), 2*batches*perBatch)
	}
	missed := 0
	for _, sp := range all {
		if got, ok := seen[sp.ID]; !ok || got.Status != sp.Status {
			if missed++; missed <= 3 {
				t.Errorf("poller has span %s as %q, store as %q: a change was stepped over", sp.ID, got.Status, sp.Status)
			}
		}
	}
	if missed > 3 {
		t.Errorf("... %d spans in all", missed)
	}
}
