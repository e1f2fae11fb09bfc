package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/trace"

	"github.com/agentry/agentry/web/core"
)

// Timeline is GET /runs/:id: the run's header, tools, axis and one window
// of rows (see Rows for the query string), live while the run goes.
func (rp *Pages) Timeline(c echo.Context) error {
	w, tl, err := rp.window(c)
	if err != nil {
		return fmt.Errorf("show run: %w", err)
	}
	p := core.Page(c, "Run · "+tl.Run.Agent, "/runs")
	p.LiveNav = tl.Run.Live // a going run may ask for an approval while the page is open
	ctl := PageControls{Cancellable: rp.live.Has(w.RunID) || rp.durableCanceller(tl.run) != nil, CanReply: rp.runner != nil}
	if ctl.Extras, err = rp.extras(c.Request().Context(), tl.run, p.CSRF); err != nil {
		return fmt.Errorf("show run: %w", err)
	}
	return core.Render(c, http.StatusOK, TimelinePage(p, tl, w, ctl))
}

// Rows is GET /runs/:id/rows: one window of the rows a view shows, as a
// fragment. The query string is the view (see view) plus from (the first
// row's index) and optionally act and id: expand or collapse row id, all or
// none, or next (the next failure after row id). Each of these is one
// request, answered from the run's layout kept on the server.
func (rp *Pages) Rows(c echo.Context) error {
	w, _, err := rp.window(c)
	if err != nil {
		return fmt.Errorf("run rows: %w", err)
	}
	return core.Render(c, http.StatusOK, TimelineWindow(w))
}

// window computes the rows a request asks for.
func (rp *Pages) window(c echo.Context) (RowWindow, *Timeline, error) {
	if err := rp.needStore(); err != nil {
		return RowWindow{}, nil, err
	}
	ctx, id, q := c.Request().Context(), c.Param("id"), c.QueryParams()
	lay, tl, version, err := rp.layouts.current(ctx, rp.store, id, rp.now())
	if err != nil {
		return RowWindow{}, nil, core.AsMissing(err, "run", id)
	}
	v := parseView(q)
	target := v.act(tl, q.Get("act"), q.Get("id"))
	var rows []*TimelineRow
	if v.Find.Empty() {
		rows = lay.visible(tl, v)
	} else if rows, err = rp.find(ctx, tl, id, v.Find); err != nil {
		return RowWindow{}, nil, err
	}
	from := atoi(q.Get("from"))
	if target != "" {
		from = slices.IndexFunc(rows, func(r *TimelineRow) bool { return r.ID == target }) - windowRows/4
	}
	from = max(min(from, len(rows)-windowRows), 0)
	w := RowWindow{RunID: id, From: from, Total: len(rows), View: v, Target: target, Version: version}
	w.Rows = rows[from:min(from+windowRows, len(rows))]
	w.closed = v.closedIn(tl, w.Rows)
	w.changed = rp.changedSince(tl)
	return w, tl, nil
}

// find lists the rows that match q, from the store's index.
func (rp *Pages) find(ctx context.Context, tl *Timeline, id string, q trace.SpanQuery) ([]*TimelineRow, error) {
	ids, err := rp.store.FindSpans(ctx, id, q)
	return tl.found(ids), err
}

// SpanDetail is GET /runs/:id/spans/:span, the details panel's fragment:
// the one span, read whole, never the run.
func (rp *Pages) SpanDetail(c echo.Context) error {
	if err := rp.needStore(); err != nil {
		return err
	}
	ctx, id, span := c.Request().Context(), c.Param("id"), c.Param("span")
	sp, err := rp.store.Span(ctx, id, span)
	if err != nil {
		return rp.missingSpan(ctx, fmt.Errorf("show span: %w", err), id, span)
	}
	return core.Render(c, http.StatusOK, SpanDetailPanel(BuildSpanDetail(sp)))
}

// missingSpan is err of a span lookup said as what is missing: the run, or
// (the run is there) the span in it.
func (rp *Pages) missingSpan(ctx context.Context, err error, id, span string) error {
	if core.StatusOf(err) != http.StatusNotFound {
		return err
	}
	if _, rerr := rp.store.Run(ctx, id); rerr != nil {
		return core.AsMissing(rerr, "run", id)
	}
	return core.NotFound("span", span)
}

// Cancel is POST /runs/:id/cancel: it stops every branch of a run this
// server started, or of a durable run (DurableCanceller) whoever started
// it. The page learns the outcome from its live stream.
func (rp *Pages) Cancel(c echo.Context) error {
	if err := rp.needStore(); err != nil {
		return err
	}
	id := c.Param("id")
	dc, _ := rp.runner.(DurableCanceller)
	if err := rp.live.CancelRun(c.Request().Context(), rp.store, dc, id); err != nil {
		return fmt.Errorf("cancel run: %w", err)
	}
	if core.IsHTMX(c) {
		return c.NoContent(http.StatusNoContent)
	}
	return c.Redirect(http.StatusSeeOther, "/runs/"+id)
}

// Export is GET /runs/:id/export: the `traces export` document as a download.
func (rp *Pages) Export(c echo.Context) error {
	if err := rp.needStore(); err != nil {
		return err
	}
	id := c.Param("id")
	doc, err := rp.store.Export(c.Request().Context(), id)
	if err != nil {
		return core.AsMissing(fmt.Errorf("export run: %w", err), "run", id)
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("export run: %w", err)
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentDisposition, fmt.Sprintf("attachment; filename=%q", "run-"+id+".json"))
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, append(b, '\n'))
}
