package runs

import (
	"cmp"
	"slices"
)

// markCritical flags the critical path: the chain of spans that determined
// when the run ended. It starts at the root that ended last and, inside each
// span, walks back from the span's end: the child that ended last is on the
// path, then the child that ended last before that one started, and so on.
// A child that overlapped the one after it on the path did not make the run
// longer, so it stays off the path; that is how a reader tells the branch
// that mattered from a parallel one that merely ran alongside.
func markCritical(roots []*TimelineRow) {
	var last *TimelineRow
	for _, r := range roots {
		if last == nil || r.end.After(last.end) {
			last = r
		}
	}
	if last != nil {
		markCriticalFrom(last)
	}
}

func markCriticalFrom(r *TimelineRow) {
	r.Critical = true
	if len(r.Children) == 0 {
		return
	}
	kids := slices.Clone(r.Children)
	slices.SortFunc(kids, func(a, b *TimelineRow) int {
		if c := b.end.Compare(a.end); c != 0 {
			return c
		}
		return cmp.Compare(b.start.UnixNano(), a.start.UnixNano())
	})
	// The last child to end is on the path even when recording put its end a
	// hair after its parent's.
	markCriticalFrom(kids[0])
	t := kids[0].start
	for _, c := range kids[1:] {
		if !c.end.After(t) {
			markCriticalFrom(c)
			t = c.start
		}
	}
}
