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
	index  map[spanKey]int // position in the queue: chunk i/chunk, offset i%chunk
	n      int
}

// newSpanQueue makes a queue presized for about hint spans: the next
// batch is likely the size of the last one.
func newSpanQueue(chunk, hint int) *spanQueue {
	q := &spanQueue{chunk: chunk, index: make(map[spanKey]int, hint)}
	if hint > 0 {
		q.chunks = [][]Span{make([]Span, 0, min(hint, chunk))}
	}
	return q
}

func (q *spanQueue) len() int { return q.n }

// update replaces the pending state of s's span and reports whether there
// was one.
func (q *spanQueue) update(k spanKey, s Span) bool {
	i, ok := q.index[k]
	if ok {
		q.chunks[i/q.chunk][i%q.chunk] = s
	}
	return ok
}

// add appends a span not yet pending.
func (q *spanQueue) add(k spanKey, s Span) {
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
	q.index[k] = q.n
	q.chunks[last] = append(q.chunks[last], s)
	q.n++
}

// get returns the pending state of a span, if any.
func (q *spanQueue) get(k spanKey) (Span, bool) {
	i, ok := q.index[k]
	if !ok {
		return Span{}, false
	}
	return q.chunks[i/q.chunk][i%q.chunk], true
}
