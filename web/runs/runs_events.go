package runs

import (
	"bytes"
	"fmt"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

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
	lay, _, _, err := rp.layouts.current(ctx, rp.store, id, rp.now())
	if err != nil {
		return core.AsMissing(fmt.Errorf("run events: %w", err), "run", id)
	}
	w := core.OpenEventStream(c)
	pace := newLivePace(rp.poll)
	ping := time.NewTicker(core.Heartbeat)
	defer ping.Stop()
	sent := -1 // the layout version last sent
	for {
		tl, version, err := lay.current(ctx, rp.store, rp.now())
		if err != nil {
			return fmt.Errorf("run events: %w", err)
		}
		final := tl.Run.Status.IsFinal()
		if pace.redraw(version != sent || final) {
			if version == sent { // nothing changed: redraw so running bars grow
				tl, version = lay.regrow(rp.now())
			}
			sent = version
			if err := rp.sendState(c, w, tl, version); err != nil {
				return err
			}
		}
		if final {
			core.WriteEvent(w, "end", string(tl.Run.Status))
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

// sendState renders the run's header, axis, rollup, extras and legend as events. The
// "rows" event carries the axis with the layout's version: the page then
// fetches the window of rows it shows, so what travels does not grow with
// the run.
func (rp *Pages) sendState(c echo.Context, w *echo.Response, tl *Timeline, version int) error {
	x, err := rp.extras(c.Request().Context(), tl.run, core.CSRFToken(c))
	if err != nil {
		return err
	}
	parts := []struct {
		event string
		comp  templ.Component
	}{
		{"header", TimelineHeader(tl.Run, rp.live.Has(tl.Run.ID), rp.runner != nil, core.CSRFToken(c))},
		{"rows", TimelineAxis(tl, version)},
		{"rollup", RollupTable(tl.Rollup)},
		{"extras", RunExtrasPart(x)},
		{"legend", Legend(tl.Marks, tl.Run.Live)},
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
