package sched

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestALineServesItsWaitersInArrivalOrder(t *testing.T) {
	l := NewLine(1)
	if !l.Take(1) || l.Take(2) || l.Take(3) {
		t.Fatal("a line of one granted more than one slot, or none")
	}
	if !l.Leave(3) || l.Waiting(3) {
		t.Fatal("a waiter that left is still in line")
	}
	if next, ok := l.Release(); !ok || next != 2 {
		t.Fatalf("released to %d (%v), want 2", next, ok)
	}
	if _, ok := l.Release(); ok || !l.Free() {
		t.Fatal("the last release handed the slot to nobody, yet the line is not free")
	}
	if nolimit := NewLine(0); !nolimit.Take(1) || !nolimit.Take(2) {
		t.Fatal("a line without a limit made a call wait")
	}
}

func TestLinkRefusesBadIdsSelfDependenciesAndCycles(t *testing.T) {
	nodes := []Node{
		{ID: "a"},
		{ID: "a"},
		{ID: "b", DependsOn: []string{"a"}},
		{ID: "c", DependsOn: []string{"nobody"}},
		{ID: "d", DependsOn: []string{"d"}},
		{ID: "x", DependsOn: []string{"y"}},
		{ID: "y", DependsOn: []string{"x"}},
	}
	deps := Link(nodes)
	want := []string{"", "used by another call", "", "which no call in this turn has as id", "depends on itself",
		"dependency cycle rejected: x → y → x", "dependency cycle rejected: y → x → y"}
	for i, w := range want {
		if got := nodes[i].Err; w == "" && got != "" || w != "" && !strings.Contains(got, w) {
			t.Errorf("node %d: err %q, want %q", i, got, w)
		}
	}
	if len(deps[2]) != 1 || deps[2][0] != 0 {
		t.Errorf("b depends on %v, want [0]", deps[2])
	}
}

func TestAFIFONeverGrantsASlotOnceItsContextEnded(t *testing.T) {
	f := NewFIFO(1)
	if err := f.Acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("stopped")
	queued := make(chan struct{})
	done := make(chan error)
	go func() { done <- f.AcquireNoting(ctx, func() { close(queued) }) }()
	<-queued
	cancel(cause)
	if err := <-done; !errors.Is(err, cause) {
		t.Fatalf("a waiter whose context ended got %v, want its cause", err)
	}
	f.Release()
	if err := f.Acquire(context.Background()); err != nil {
		t.Fatalf("the slot was not free after the waiter gave up: %v", err)
	}
	var none *FIFO
	if err := none.Acquire(context.Background()); err != nil || none.Size() != 0 {
		t.Fatal("a nil FIFO blocked or has a size")
	}
}

func TestTurnCallsShareOneLimit(t *testing.T) {
	tc := &TurnCalls{Limit: 3}
	if n, why := tc.Take(2); n != 2 || why != "" {
		t.Fatalf("took %d (%q)", n, why)
	}
	if n, why := tc.Take(2); n != 1 || !strings.Contains(why, "limits.turn_tool_calls") {
		t.Fatalf("took %d (%q), want 1 and the cap's words", n, why)
	}
}
