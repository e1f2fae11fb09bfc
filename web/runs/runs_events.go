package runs

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/trace"

	"github.com/agentry/agentry/web/core"
)

// liveRefresh is how often a running timeline is redrawn even when nothing
// changed, so running bars keep growing towards now.
const liveRefresh = time.Second

// Events is GET /runs/:id/events, the live tail of a run as Server-Sent
// Events. It polls the store for changed spans and, after each change,
// sends the page's parts re-rendered ("header", "rows", "rollup"); when the
// run has ended it sends them one last time and "end", then closes.
// A client that connects to an ended run gets the final state at once.
func (rp *Pages) Events(c echo.Context) error {
	if err := rp.needStore(); err != nil {
		return err
	}
	ctx, id := c.Request().Context(), c.Param("id")
	if _, err := rp.store.Run(ctx, id); err != nil {
		return fmt.Errorf("run events: %w", err)
	}
	w := core.OpenEventStream(c)
	tail := &runTail{id: id, store: rp.store, index: map[string]int{}}
	poll := time.NewTicker(rp.poll)
	defer poll.Stop()
	ping := time.NewTicker(core.Heartbeat)
	defer ping.Stop()
	var sent time.Time
	for {
		changed, run, err := tail.next(ctx)
		if err != nil {
			return fmt.Errorf("run events: %w", err)
		}
		final := run.Status.IsFinal()
		if changed || final || rp.now().Sub(sent) >= liveRefresh {
			if err := rp.sendState(c, w, tail, run); err != nil {
				return err
			}
			sent = rp.now()
		}
		if final {
			core.WriteEvent(w, "end", string(run.Status))
			w.Flush()
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-rp.stop:
			return nil
		case <-ping.C:
			fmt.Fprint(w, ": ping\n\n")
			w.Flush()
		case <-poll.C:
		}
	}
}

// sendState renders the run's header, rows and rollup as three events.
func (rp *Pages) sendState(c echo.Context, w *echo.Response, tail *runTail, run trace.Run) error {
	tl := BuildTimeline(run, tail.spans, rp.now())
	parts := []struct {
		event string
		comp  templ.Component
	}{
		{"header", TimelineHeader(tl.Run, rp.live.has(run.ID), core.CSRFToken(c))},
		{"rows", TimelineBody(tl)},
		{"rollup", RollupTable(tl.Rollup)},
	}
	var buf bytes.Buffer
	for _, p := range parts {
		buf.Reset()
		if err := p.comp.Render(c.Request().Context(), &buf); err != nil {
			return fmt.Errorf("run events: render %s: %w", p.event, err)
		}
		core.WriteEvent(w, p.event, buf.String())
	}
	w.Flush()
	return nil
}

// runTail follows one run in the store: it keeps every span seen so far and
// asks only for what changed since.
type runTail struct {
	id     string
	store  RunStore
	cursor int64
	spans  []trace.Span // in start order
	index  map[string]int
	run    trace.Run
	polled bool
}

// next merges the spans changed since the last call and reads the run. It
// reports whether anything the page shows changed.
func (t *runTail) next(ctx context.Context) (bool, trace.Run, error) {
	changed, cursor, err := t.store.SpansSince(ctx, t.id, t.cursor)
	if err != nil {
		return false, trace.Run{}, err
	}
	t.cursor = cursor
	reorder := false
	for _, sp := range changed {
		if i, ok := t.index[sp.ID]; ok {
			t.spans[i] = sp
			continue
		}
		if n := len(t.spans); n > 0 && sp.StartedAt.Before(t.spans[n-1].StartedAt) {
			reorder = true
		}
		t.index[sp.ID] = len(t.spans)
		t.spans = append(t.spans, sp)
	}
	if reorder {
		slices.SortStableFunc(t.spans, func(a, b trace.Span) int { return a.StartedAt.Compare(b.StartedAt) })
		for i, sp := range t.spans {
			t.index[sp.ID] = i
		}
	}
	run, err := t.store.Run(ctx, t.id)
	if err != nil {
		return false, trace.Run{}, err
	}
	first := !t.polled
	t.polled = true
	moved := run.Status != t.run.Status || run.InputTokens != t.run.InputTokens ||
		run.OutputTokens != t.run.OutputTokens || run.Agents != t.run.Agents || !run.EndedAt.Equal(t.run.EndedAt)
	t.run = run
	return first || moved || len(changed) > 0, run, nil
}
