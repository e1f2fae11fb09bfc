package runs

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/trace"

	"github.com/agentry/agentry/web/core"
)

// Timeline is GET /runs/:id: the run as a waterfall, live while it goes.
func (rp *Pages) Timeline(c echo.Context) error {
	if err := rp.needStore(); err != nil {
		return err
	}
	ctx, id := c.Request().Context(), c.Param("id")
	run, err := rp.store.Run(ctx, id)
	if err != nil {
		return fmt.Errorf("show run: %w", err)
	}
	spans, err := rp.store.Spans(ctx, id)
	if err != nil {
		return fmt.Errorf("show run: %w", err)
	}
	tl := BuildTimeline(run, spans, rp.now())
	if c.QueryParam("open") == "all" {
		tl.OpenAll()
	}
	p := core.Page(c, "Run · "+run.Agent, "/runs")
	if tl.Extras, err = rp.extras(ctx, run, p.CSRF); err != nil {
		return err
	}
	return core.Render(c, http.StatusOK, TimelinePage(p, tl, rp.live.has(id)))
}

// SpanDetail is GET /runs/:id/spans/:span, the details panel's fragment.
func (rp *Pages) SpanDetail(c echo.Context) error {
	if err := rp.needStore(); err != nil {
		return err
	}
	spans, err := rp.store.Spans(c.Request().Context(), c.Param("id"))
	if err != nil {
		return fmt.Errorf("show span: %w", err)
	}
	want := c.Param("span")
	for _, sp := range spans {
		if sp.ID == want {
			return core.Render(c, http.StatusOK, SpanDetailPanel(BuildSpanDetail(sp)))
		}
	}
	return fmt.Errorf("span %q of run %q: %w", want, c.Param("id"), core.ErrNotFound)
}

// SpanChildren is GET /runs/:id/spans/:span/children: the rows under a row
// of a big run, fetched when it is first expanded. Their own children stay
// collapsed, so a big subtree opens level by level.
func (rp *Pages) SpanChildren(c echo.Context) error {
	if err := rp.needStore(); err != nil {
		return err
	}
	ctx, id := c.Request().Context(), c.Param("id")
	run, err := rp.store.Run(ctx, id)
	if err != nil {
		return fmt.Errorf("span children: %w", err)
	}
	spans, err := rp.store.Spans(ctx, id)
	if err != nil {
		return fmt.Errorf("span children: %w", err)
	}
	tl := BuildTimeline(run, spans, rp.now())
	want := c.Param("span")
	for _, r := range tl.Rows {
		if r.ID == want {
			return core.Render(c, http.StatusOK, TimelineNodes(r.Children))
		}
	}
	return fmt.Errorf("span %q of run %q: %w", want, id, core.ErrNotFound)
}

// Cancel is POST /runs/:id/cancel: it stops every branch of a run this
// server started. The page learns the outcome from its live stream.
func (rp *Pages) Cancel(c echo.Context) error {
	if err := rp.needStore(); err != nil {
		return err
	}
	id := c.Param("id")
	if !rp.live.cancel(id) {
		run, err := rp.store.Run(c.Request().Context(), id)
		if err != nil {
			return fmt.Errorf("cancel run: %w", err)
		}
		return echo.NewHTTPError(http.StatusConflict, notCancellable(run.Status))
	}
	if core.IsHTMX(c) {
		return c.NoContent(http.StatusNoContent)
	}
	return c.Redirect(http.StatusSeeOther, "/runs/"+id)
}

// notCancellable says why Cancel cannot reach a run this server is not running.
func notCancellable(st trace.Status) string {
	switch {
	case st == trace.StatusInterrupted:
		return "This run was interrupted: the agentry process that ran it stopped before it ended, so there is nothing left to cancel."
	case st.IsFinal():
		return "This run has already ended (" + string(st) + "); there is nothing left to cancel."
	}
	return "This run is going in another agentry process (a CLI run or another serve), and only that process can cancel it: stop it there (Ctrl-C)."
}

// Export is GET /runs/:id/export: the `traces export` document as a download.
func (rp *Pages) Export(c echo.Context) error {
	if err := rp.needStore(); err != nil {
		return err
	}
	id := c.Param("id")
	doc, err := rp.store.Export(c.Request().Context(), id)
	if err != nil {
		return fmt.Errorf("export run: %w", err)
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("export run: %w", err)
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentDisposition, fmt.Sprintf("attachment; filename=%q", "run-"+id+".json"))
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, append(b, '\n'))
}

var _ RunStore = trace.Store(nil)
