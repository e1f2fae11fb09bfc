package trace

import (
	"fmt"
	"slices"
	"testing"
)

// Spans across several pieces are taken in the order added, in batches of
// at most the size asked for, and a repeat keeps its first place with its
// latest state.
func TestSpanQueueKeepsOrderAcrossPieces(t *testing.T) {
	var q spanQueue
	n := 2*pieceLen + 44
	for i := range n {
		if got := q.add(Span{RunID: "r", ID: fmt.Sprint(i)}); got != i {
			t.Fatalf("add %d returned position %d", i, got)
		}
	}
	q.add(Span{RunID: "r", ID: "5", Status: StatusOK}) // the same span, recorded again
	index := q.dedupe()
	if q.len() != n || index[spanKey{"r", "5"}] != 5 || q.at(5).Status != StatusOK {
		t.Fatalf("after dedupe: %d spans, span 5 at %d with status %q; want %d, at 5, ok",
			q.len(), index[spanKey{"r", "5"}], q.at(5).Status, n)
	}
	for _, size := range []int{1, 100, pieceLen, 3 * pieceLen} {
		taken, next := q, 0 // a copy: each size takes from the same spans
		taken.pieces = slices.Clone(q.pieces)
		for taken.len() > 0 {
			b := taken.take(size)
			if len(b) == 0 || len(b) > size {
				t.Fatalf("size %d: a batch of %d spans", size, len(b))
			}
			for _, s := range b {
				if s.ID != fmt.Sprint(next) {
					t.Fatalf("size %d: span %q where %d was due", size, s.ID, next)
				}
				next++
			}
		}
		if next != n || len(taken.pieces) != 0 {
			t.Errorf("size %d: %d spans taken, %d pieces left; want %d and none", size, next, len(taken.pieces), n)
		}
	}
}
