package trace

// spanQueue holds a Recorder's pending spans in the order first recorded,
// in pieces of pieceLen spans. A span, once added, is never copied or
// moved until the writer takes the queue: a queue grown by doubling
// copied every span about once more and allocated, zeroed and faulted in
// twice the memory it held, all under the Recorder's lock on the agents'
// path, where it was half of the Recorder's own work (docs/runtime.md,
// sixth round). The writer copies the spans out into batches for Apply.
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

// batches returns the spans in order, in slices of at most size spans
// (one Apply each).
func (q *spanQueue) batches(size int) [][]Span {
	var out [][]Span
	for _, p := range q.pieces {
		for len(p) > 0 {
			if len(out) == 0 || len(out[len(out)-1]) == size {
				out = append(out, make([]Span, 0, min(size, q.n-size*len(out))))
			}
			b := &out[len(out)-1]
			k := min(len(p), size-len(*b))
			*b = append(*b, p[:k]...)
			p = p[k:]
		}
	}
	return out
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
