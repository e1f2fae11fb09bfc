package trace

// spanQueue holds a Recorder's pending spans in the order first recorded,
// in chunks of at most chunk spans (the Recorder's BatchSize), each one
// Apply. A big run records spans faster than a store writes them, so
// thousands wait at once: one slice for all of them, grown by append's
// quarter steps, copied every pending span about five times over (a
// tenth of ingest's CPU). Chunks are never copied once full, and the
// first grows by doubling.
type spanQueue struct {
	chunk  int
	chunks [][]Span
	n      int
}

// newSpanQueue makes a queue presized for about hint spans: the next
// batch is likely the size of the last one.
func newSpanQueue(chunk, hint int) *spanQueue {
	q := &spanQueue{chunk: chunk}
	if hint > 0 {
		q.chunks = [][]Span{make([]Span, 0, min(hint, chunk))}
	}
	return q
}

func (q *spanQueue) len() int { return q.n }

// at returns the i-th span added.
func (q *spanQueue) at(i int) *Span { return &q.chunks[i/q.chunk][i%q.chunk] }

// add appends s and returns its position.
func (q *spanQueue) add(s Span) int {
	last := len(q.chunks) - 1
	switch {
	case last < 0 || len(q.chunks[last]) == q.chunk:
		q.chunks = append(q.chunks, make([]Span, 0, min(q.chunk, max(q.n, 64))))
		last++
	case len(q.chunks[last]) == cap(q.chunks[last]):
		c := q.chunks[last]
		grown := make([]Span, len(c), min(q.chunk, 2*cap(c)))
		copy(grown, c)
		q.chunks[last] = grown
	}
	q.chunks[last] = append(q.chunks[last], s)
	q.n++
	return q.n - 1
}

// dedupe leaves each span once, at the place it was first added, in its
// latest state, and returns where each span is. Recording coalesces a
// span's records while it is open, so repeats are rare (a span recorded
// again after its end) and usually none are found; the index it builds
// is the cost.
func (q *spanQueue) dedupe() map[spanKey]int {
	index := make(map[spanKey]int, q.n)
	repeats := false
	for i := range q.n {
		s := q.at(i)
		k := spanKey{s.RunID, s.ID}
		if first, ok := index[k]; ok {
			*q.at(first), s.ID, repeats = *s, "", true // "": a repeat, dropped below
			continue
		}
		index[k] = i
	}
	if !repeats {
		return index
	}
	kept := newSpanQueue(q.chunk, q.n)
	for _, c := range q.chunks {
		for _, s := range c {
			if s.ID != "" {
				index[spanKey{s.RunID, s.ID}] = kept.add(s)
			}
		}
	}
	*q = *kept
	return index
}
