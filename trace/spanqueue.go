package trace

// spanQueue holds a Recorder's pending spans in the order first recorded,
// in pieces of pieceLen spans. A span, once added, is never copied or
// moved until the writer takes the queue: a queue grown by doubling
// copied every span about once more and allocated, zeroed and faulted in
// twice the memory it held, all under the Recorder's lock on the agents'
// path, where it was half of the Recorder's own work (docs/runtime.md,
// sixth round). The writer copies the spans out, a batch for each Apply.
type spanQueue struct {
	pieces [][]Span
	n      int
}

// pieceLen spans make a piece of about 30 KB: under the 32 KB above which
// Go gives each allocation pages of its own.
const pieceLen = 128

func (q *spanQueue) len() int { return q.n }

// at returns the i-th span added.
func (q *spanQueue) at(i int) *Span { return &q.pieces[i/pieceLen][i%pieceLen] }

// add appends s and returns its position.
func (q *spanQueue) add(s Span) int {
	if q.n%pieceLen == 0 {
		q.pieces = append(q.pieces, make([]Span, 0, pieceLen))
	}
	last := &q.pieces[len(q.pieces)-1]
	*last = append(*last, s)
	q.n++
	return q.n - 1
}

// take removes the first size spans (all, when fewer) and returns them in
// one slice, the pieces they filled let go. It is the writer's, on a queue
// the Recorder has handed over: the positions add returned no longer hold.
func (q *spanQueue) take(size int) []Span {
	batch := make([]Span, 0, min(size, q.n))
	for len(batch) < size && len(q.pieces) > 0 {
		p := q.pieces[0]
		k := min(len(p), size-len(batch))
		batch = append(batch, p[:k]...)
		if k == len(p) {
			q.pieces[0], q.pieces = nil, q.pieces[1:]
		} else {
			q.pieces[0] = p[k:]
		}
	}
	q.n -= len(batch)
	return batch
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
	var kept spanQueue
	for _, p := range q.pieces {
		for _, s := range p {
			if s.ID != "" {
				index[spanKey{s.RunID, s.ID}] = kept.add(s)
			}
		}
	}
	*q = kept
	return index
}
