package progress

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/agentry/agentry/trace"
)

// Tail feeds run runID's spans to p as the workers store them, until done
// is closed. An agent that started and ended between two reads is fed as
// started first, so its "▶ started" line is printed as in-process.
func (p *Printer) Tail(store trace.Store, runID string, done <-chan struct{}) {
	seen := map[string]bool{}
	Follow(store, runID, done, func(sp trace.Span) {
		if !seen[sp.ID] && sp.Kind == trace.KindInvokeAgent && sp.Status.IsFinal() {
			started := sp
			started.Status, started.Error, started.EndedAt = trace.StatusRunning, "", time.Time{}
			p.RecordSpan(started)
		}
		seen[sp.ID] = true
		p.RecordSpan(sp)
	})
}

// Follow reads the run's spans written since the last read every 100 ms
// until done is closed, then once more, so the records written last are
// read too, and hands each read's spans to each in start order: change
// order puts a parent that ended after its children last, and start order
// prints it first, as in-process.
func Follow(store trace.Store, runID string, done <-chan struct{}, each func(trace.Span)) {
	var cursor int64
	read := func() {
		spans, next, err := store.SpansSince(context.Background(), runID, cursor)
		if err != nil {
			return
		}
		cursor = next
		slices.SortStableFunc(spans, func(a, b trace.Span) int { return a.StartedAt.Compare(b.StartedAt) })
		for _, sp := range spans {
			each(sp)
		}
	}
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-done:
			read()
			return
		case <-t.C:
			read()
		}
	}
}

// TailSteps prints a workflow run's steps as the workers record them, with
// the lines an in-process workflow run prints (Step): "running" when a
// step starts, its status when it ends. A step span rewritten by a worker
// that took over the run is printed once.
func TailSteps(store trace.Store, runID string, w io.Writer, done <-chan struct{}) {
	printed := map[string]int{} // span ID → 1 running printed, 2 end printed
	Follow(store, runID, done, func(sp trace.Span) {
		if sp.Kind != trace.KindWorkflowStep || printed[sp.ID] == 2 {
			return
		}
		id, _ := sp.Attributes["step_id"].(string)
		_, ran := sp.Attributes["depends_on"] // a step that never ran (skipped, aborted) has none
		if printed[sp.ID] == 0 && ran {
			Step(w, id, "running")
			printed[sp.ID] = 1
		}
		// A step the reaper marked interrupted (its worker died) has no
		// step_status: the worker taking over ends it again.
		if st, ended := sp.Attributes["step_status"]; ended && sp.Status.IsFinal() {
			Step(w, id, fmt.Sprint(st))
			printed[sp.ID] = 2
		}
	})
}

// Step prints a workflow step's line: "step ID STATUS".
func Step(w io.Writer, id, status string) {
	fmt.Fprintf(w, "step %-20s %s\n", id, status)
}
