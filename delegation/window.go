package delegation

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// windows are the per-conversation sliding windows of tool calls
// (Limits.WindowCalls per Limits.Window), shared by the runs of a
// conversation in this process: a chat's follow-ups count together.
type windows struct {
	mu      sync.Mutex
	m       map[string][]time.Time // call times within the window, oldest first
	sweepAt int                    // size of m at which stale windows are dropped
}

// minSweep is the number of conversations below which stale windows are
// left alone: a run's window outlives it, since its follow-ups (a chat's
// next line, a reply) continue it under its ID.
const minSweep = 256

// take reserves up to n calls for conversation key at now and returns how
// many it granted, with why the rest were refused.
func (w *windows) take(l Limits, key string, n int, now time.Time) (int, string) {
	if l.WindowCalls <= 0 || l.Window <= 0 || n == 0 {
		return n, ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[string][]time.Time{}
	}
	if len(w.m) >= max(w.sweepAt, minSweep) {
		w.sweep(l, now)
	}
	times := w.m[key]
	cut := 0
	for cut < len(times) && !times[cut].After(now.Add(-l.Window)) {
		cut++
	}
	times = times[cut:]
	granted := min(n, l.WindowCalls-len(times))
	for range granted {
		times = append(times, now)
	}
	w.m[key] = times
	if granted == n {
		return n, ""
	}
	return granted, WindowFull(l.WindowCalls, l.Window, times[0].Add(l.Window).Sub(now))
}

// sweep drops the windows whose last call has left the window; w.mu is held.
func (w *windows) sweep(l Limits, now time.Time) {
	for k, times := range w.m {
		if len(times) == 0 || !times[len(times)-1].After(now.Add(-l.Window)) {
			delete(w.m, k)
		}
	}
	w.sweepAt = 2 * len(w.m)
}

// turnBudget is what the agents one model turn of an invocation
// dispatched share (a per-turn cap counts one model turn):
// Limits.TurnToolCalls tool calls of them together.
type turnBudget struct {
	limit int // limits.turn_tool_calls (0 = none)
	calls atomic.Int64
}

// take reserves up to n tool calls and returns how many it granted, with
// why the rest were refused.
func (b *turnBudget) take(n int) (int, string) {
	if b == nil || b.limit <= 0 || n == 0 {
		return n, ""
	}
	for {
		used := b.calls.Load()
		granted := min(int64(n), max(int64(b.limit)-used, 0))
		if b.calls.CompareAndSwap(used, used+granted) {
			if int(granted) == n {
				return n, ""
			}
			return int(granted), TurnCallsFull(b.limit)
		}
	}
}

// TurnCallsFull is why a dispatched agent's tool calls were not run: the
// agents of its dispatcher's turn used limits.turn_tool_calls n together.
func TurnCallsFull(n int) string {
	return fmt.Sprintf("per-turn cap: the agents dispatched in one turn used %d tool calls together (limits.turn_tool_calls)", n)
}

// WindowFull is why tool calls were not run: the window's calls are used,
// and the next frees up after wait.
func WindowFull(calls int, window, wait time.Duration) string {
	return fmt.Sprintf("conversation window: %d tool calls in %s used (limits.window_calls); the next frees up in %s",
		calls, window, wait.Round(time.Second))
}
