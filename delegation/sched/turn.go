package sched

import (
	"fmt"
	"sync/atomic"
)

// TurnCalls counts the tool calls of the agents one model turn of an
// invocation dispatched, under limits.turn_tool_calls (a per-turn cap
// counts one model turn): they share Limit together. Safe for concurrent
// use; a nil *TurnCalls grants everything.
type TurnCalls struct {
	Limit int // 0: no cap
	used  atomic.Int64
}

// Take reserves up to n tool calls and returns how many it granted, with
// why the rest were refused.
func (t *TurnCalls) Take(n int) (int, string) {
	if t == nil || t.Limit <= 0 || n == 0 {
		return n, ""
	}
	for {
		used := t.used.Load()
		granted := GrantCalls(int(used), n, t.Limit)
		if t.used.CompareAndSwap(used, used+int64(granted)) {
			if granted == n {
				return n, ""
			}
			return granted, TurnCallsFull(t.Limit)
		}
	}
}

// GrantCalls is how many of asked calls fit under limit when used are
// made: the arithmetic of a per-turn cap, wherever it is counted.
func GrantCalls(used, asked, limit int) int { return max(min(asked, limit-used), 0) }

// TurnCallsFull is why a dispatched agent's tool calls were not run: the
// agents of its dispatcher's turn used limits.turn_tool_calls n together.
func TurnCallsFull(n int) string {
	return fmt.Sprintf("per-turn cap: the agents dispatched in one turn used %d tool calls together (limits.turn_tool_calls)", n)
}
