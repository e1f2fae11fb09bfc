package trace

import (
	"fmt"
	"testing"
)

// Spans across several chunks stay where they were added, in order, each
// chunk and batch at most the queue's largest, a repeat keeps its first
// place with its latest state, and a short batch's chunks go out as one.
func TestSpanQueueKeepsOrderAcrossChunks(t *testing.T) {
	q := newSpanQueue(300, 0)
	n := 1000
	for i := range n {
		if got := q.add(Span{RunID: "r", ID: fmt.Sprint(i)}); got != i {
			t.Fatalf("add %d returned position %d", i, got)
		}
	}
	q.add(Span{RunID: "r", ID: "500", Status: StatusOK}) // the same span, recorded again
	index := q.dedupe()
	if q.len() != n || index[spanKey{"r", "500"}] != 500 || q.at(500).Status != StatusOK {
		t.Fatalf("after dedupe: %d spans, span 500 at %d with status %q; want %d, at 500, ok",
			q.len(), index[spanKey{"r", "500"}], q.at(500).Status, n)
	}
	next := 0
	for _, c := range q.chunks {
		if len(c) > 300 {
			t.Errorf("a chunk of %d spans, want at most 300", len(c))
		}
		for _, s := range c {
			if s.ID != fmt.Sprint(next) || q.at(next).ID != s.ID {
				t.Fatalf("span %q where %d was due", s.ID, next)
			}
			next++
		}
	}
	if next != n {
		t.Errorf("%d spans in the chunks, want %d", next, n)
	}
	next = 0
	for _, b := range q.batches() {
		if len(b) > 300 {
			t.Errorf("a batch of %d spans, want at most 300", len(b))
		}
		for _, s := range b {
			if s.ID != fmt.Sprint(next) {
				t.Fatalf("batches: span %q where %d was due", s.ID, next)
			}
			next++
		}
	}
	if next != n {
		t.Errorf("%d spans in the batches, want %d", next, n)
	}
	short := newSpanQueue(1000, 0)
	for i := range 300 {
		short.add(Span{RunID: "r", ID: fmt.Sprint(i)})
	}
	if b := short.batches(); len(short.chunks) != 2 || len(b) != 1 || len(b[0]) != 300 {
		t.Errorf("300 spans in %d chunks went out in %d batches; want 2 chunks joined into one", len(short.chunks), len(b))
	}
}
