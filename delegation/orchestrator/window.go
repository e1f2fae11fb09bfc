package orchestrator

import (
	"fmt"
	"slices"
	"sync"
	"time"
)

// Window is one conversation's sliding window of tool calls: at most Limit
// calls in any Span (limits.window_calls, limits.window). It is plain
// data: the in-process runtime keeps one per conversation (Windows), the
// Temporal engine one per run in the root workflow's ledger; both count
// with Take. Not safe for concurrent use.
type Window struct {
	Limit int
	Span  time.Duration
	times []time.Time // calls within the span, oldest first
}

// Take grants up to n calls made at now, and says why the others may not
// run ("" when all may). held are calls granted ahead that count as made
// (a durable engine's leases), the first of which leaves the window at
// heldFree.
func (w *Window) Take(n int, now time.Time, held int, heldFree time.Time) (int, string) {
	w.trim(now)
	granted := max(min(n, w.Limit-len(w.times)-held), 0)
	for range granted {
		w.times = append(w.times, now)
	}
	if granted == n {
		return n, ""
	}
	next := now.Add(w.Span) // when the oldest call, or the first held ones, leave the window
	if len(w.times) > 0 {
		next = w.times[0].Add(w.Span)
	}
	if held > 0 && heldFree.Before(next) {
		next = heldFree
	}
	return granted, WindowFull(w.Limit, w.Span, next.Sub(now))
}

// Used is how many calls are in the window at now.
func (w *Window) Used(now time.Time) int {
	w.trim(now)
	return len(w.times)
}

// Made counts n calls as made at t, in their place (a lease's calls, at its
// end, the latest they can have been made).
func (w *Window) Made(n int, t time.Time) {
	i, _ := slices.BinarySearchFunc(w.times, t, func(a, b time.Time) int { return a.Compare(b) })
	w.times = slices.Insert(w.times, i, slices.Repeat([]time.Time{t}, max(n, 0))...)
}

// trim drops the calls that left the window by now.
func (w *Window) trim(now time.Time) {
	cut := 0
	for cut < len(w.times) && !w.times[cut].After(now.Add(-w.Span)) {
		cut++
	}
	w.times = w.times[cut:]
}

// WindowFull is why tool calls were not run: the window's calls are used,
// and the next frees up after wait.
func WindowFull(calls int, window, wait time.Duration) string {
	return fmt.Sprintf("conversation window: %d tool calls in %s used (limits.window_calls); the next frees up in %s",
		calls, window, wait.Round(time.Second))
}

// Windows are the per-conversation windows of a process, shared by the
// runs of a conversation: a chat's follow-ups count together. Safe for
// concurrent use.
type Windows struct {
	mu      sync.Mutex
	m       map[string]*Window
	sweepAt int // size of m at which stale windows are dropped
}

// minSweep is the number of conversations below which stale windows are
// left alone: a run's window outlives it, since its follow-ups (a chat's
// next line, a reply) continue it under its ID.
const minSweep = 256

// Take grants up to n calls of conversation key at now under l's window.
func (ws *Windows) Take(l Limits, key string, n int, now time.Time) (int, string) {
	if l.WindowCalls <= 0 || l.Window <= 0 || n == 0 {
		return n, ""
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.m == nil {
		ws.m = map[string]*Window{}
	}
	if len(ws.m) >= max(ws.sweepAt, minSweep) {
		ws.sweep(now)
	}
	w := ws.m[key]
	if w == nil {
		w = &Window{}
		ws.m[key] = w
	}
	w.Limit, w.Span = l.WindowCalls, l.Window
	return w.Take(n, now, 0, time.Time{})
}

// Len is how many conversations have a window kept.
func (ws *Windows) Len() int {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return len(ws.m)
}

// sweep drops the windows whose last call has left the window; ws.mu is
// held.
func (ws *Windows) sweep(now time.Time) {
	for k, w := range ws.m {
		if w.Used(now) == 0 {
			delete(ws.m, k)
		}
	}
	ws.sweepAt = 2 * len(ws.m)
}
