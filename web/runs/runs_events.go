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

// How often a live timeline looks at the store and redraws. A running run
// whose trace does not change is looked at less and less often (up to
// maxIdlePoll) and redrawn less and less often (up to maxIdleRefresh, so
// running bars still grow towards now), so a tab left open on a stuck run
// costs little; any change brings both back to their fastest.
const (
	liveRefresh    = time.Second     // first redraw of an unchanged running run
	maxIdleRefresh = 5 * time.Second // slowest redraw of an unchanged running run
	maxIdlePoll    = time.Second     // slowest look at the store while nothing changes
)

// Events is GET /runs/:id/events, the live tail of a run as Server-Sent
// Events. It polls the store for changed spans (backing off while nothing
// changes) and, after each change, sends the page's parts re-rendered
// ("header", "rows", "rollup"); when the run has ended it sends them one
// last time and "end", then closes. A client that connects to an ended run
// gets the final state at once.
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
	pace := newLivePace(rp.poll)
	ping := time.NewTicker(core.Heartbeat)
	defer ping.Stop()
	for {
		changed, run, err := tail.next(ctx)
		if err != nil {
			return fmt.Errorf("run events: %w", err)
		}
		final := run.Status.IsFinal()
		if pace.redraw(changed || final) {
			if err := rp.sendState(c, w, tail, run); err != nil {
				return err
			}
		}
		if final {
			core.WriteEvent(w, "end", string(run.Status))
			w.Flush()
			return nil
		}
		wait := time.NewTimer(pace.next())
		select {
		case <-ctx.Done():
			wait.Stop()
			return nil
		case <-rp.stop:
			wait.Stop()
			return nil
		case <-ping.C:
			wait.Stop()
			fmt.Fprint(w, ": ping\n\n")
			w.Flush()
		case <-wait.C:
		}
	}
}

// livePace decides when a live timeline looks at the store again and
// whether to redraw, backing off while nothing changes.
type livePace struct {
	fastest, poll, refresh time.Duration
	drawn                  time.Time // when the state was last sent
}

func newLivePace(fastest time.Duration) *livePace {
	return &livePace{fastest: fastest, poll: fastest, refresh: liveRefresh}
}

// redraw reports whether to send the state now: on a change, at once (and
// back to the fastest pace); otherwise when the idle refresh is due.
func (p *livePace) redraw(changed bool) bool {
	now := time.Now()
	switch {
	case changed || p.drawn.IsZero():
		p.poll, p.refresh = p.fastest, liveRefresh
	case now.Sub(p.drawn) >= p.refresh:
		p.refresh = min(p.refresh*2, maxIdleRefresh)
	default:
		p.poll = min(p.poll*3/2, maxIdlePoll)
		return false
	}
	p.drawn = now
	return true
}

// next is how long to wait before looking at the store again.
func (p *livePace) next() time.Duration { return p.poll }

// sendState renders the run's header, rows and rollup as three events.
func (rp *Pages) sendState(c echo.Context, w *echo.Response, tail *runTail, run trace.Run) error {
	tl := BuildTimeline(run, tail.spans, rp.now())
	x, err := rp.extras(c.Request().Context(), run, core.CSRFToken(c))
	if err != nil {
		return err
	}
	parts := []struct {
		event string
		comp  templ.Component
	}{
		{"header", TimelineHeader(tl.Run, rp.live.has(run.ID), core.CSRFToken(c))},
		{"rows", TimelineBody(tl)},
		{"rollup", RollupTable(tl.Rollup)},
		{"extras", RunExtrasPart(x)},
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
