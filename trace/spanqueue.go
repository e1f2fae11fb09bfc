package trace

// spanQueue holds a Recorder's pending spans in the order first recorded,
// in chunks of at most chunk spans (the Recorder's BatchSize), each one
// Apply. A span, once added, is never copied or moved: when a chunk is
// full the next one starts at twice its size (up to chunk). A big run
// records spans faster than a store writes them, so thousands wait at
// once: one slice for all of them, grown by append's quarter steps,
// copied every pending span about five times over (a tenth of ingest's
// CPU); a chunk grown by doubling still copied each span once more, and
// allocated, zeroed and faulted in twice the memory, under the
// Recorder's lock on the agents' path (docs/runtime.md, sixth round);
// the writer joins the small chunks of a short batch (batches).
type spanQueue struct {
	chunk, first int // the largest chunk, and the first one's size
	chunks       [][]Span
	n            int
}

// firstChunk is the smallest first chunk: about 30 KB, under the 32 KB
// above which Go gives each allocation pages of its own.
const firstChunk = 128

// newSpanQueue makes a queue whose first chunk holds about hint spans:
// the next batch is likely the size of the last one.
func newSpanQueue(chunk, hint int) *spanQueue {
	return &spanQueue{chunk: chunk, first: min(chunk, max(hint, firstChunk))}
}

func (q *spanQueue) len() int { return q.n }

// at returns the i-th span added. It looks from the newest chunk back:
// the spans updated in place are the open ones, which are recent, and a
// backlog may have many chunks.
func (q *spanQueue) at(i int) *Span {
	start := q.n
	for k := len(q.chunks) - 1; ; k-- {
		start -= len(q.chunks[k])
		if i >= start {
			return &q.chunks[k][i-start]
		}
	}
}

// add appends s and returns its position.
func (q *spanQueue) add(s Span) int {
	switch last := len(q.chunks) - 1; {
	case last < 0:
		q.chunks = append(q.chunks, make([]Span, 0, q.first))
	case len(q.chunks[last]) == cap(q.chunks[last]):
		q.chunks = append(q.chunks, make([]Span, 0, min(q.chunk, 2*cap(q.chunks[last]))))
	}
	last := &q.chunks[len(q.chunks)-1]
	*last = append(*last, s)
	q.n++
	return q.n - 1
}

// batches are the chunks to Apply: the first ones joined into one while
// the join holds at most chunk spans. A store's transaction costs more
// than copying the few hundred spans of a short batch's small chunks.
func (q *spanQueue) batches() [][]Span {
	k, n := 0, 0
	for k < len(q.chunks) && n+len(q.chunks[k]) <= q.chunk {
		n += len(q.chunks[k])
		k++
	}
	if k < 2 {
		return q.chunks
	}
	joined := make([]Span, 0, n)
	for _, c := range q.chunks[:k] {
		joined = append(joined, c...)
	}
	return append([][]Span{joined}, q.chunks[k:]...)
}

// dedupe leaves each span once, at the place it was first added, in its
// latest state, and returns where each span is. Recording coalesces a
// span's records while it is open, so repeats are rare (a span recorded
// again after its end) and usually none are found; the index it builds
// is the cost.
func (q *spanQueue) dedupe() map[spanKey]int {
	index := make(map[spanKey]int, q.n)
	repeats := false
	i := 0
	for _, c := range q.chunks {
		for j := range c {
			s := &c[j]
			k := spanKey{s.RunID, s.ID}
			if first, ok := index[k]; ok {
				*q.at(first), s.ID, repeats = *s, "", true // "": a repeat, dropped below
			} else {
				index[k] = i
			}
			i++
		}
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
