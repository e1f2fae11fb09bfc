package approvals

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"

	"github.com/agentry/agentry/web/core"
)

// Store is what the approvals pages need; approval.Store satisfies it.
type Store interface {
	Approvals(ctx context.Context, f approval.Filter) ([]approval.Approval, error)
	DecideApproval(ctx context.Context, id string, ans approval.Answer) (approval.Approval, error)
	PendingApprovals(ctx context.Context) (int, error)
}

// Pages serves /approvals and the answers posted to it.
type Pages struct {
	store Store
	now   func() time.Time
}

// New builds the approvals pages; store may be nil (the pages then say so).
func New(store Store, now func() time.Time) *Pages {
	if now == nil {
		now = time.Now
	}
	return &Pages{store: store, now: now}
}

// Count is the nav badge's counter: pending approvals.
func (p *Pages) Count(ctx context.Context) (int, error) {
	if p.store == nil {
		return 0, nil
	}
	return p.store.PendingApprovals(ctx)
}

// recentAnswered is how many answered approvals the page lists below the
// pending ones.
const recentAnswered = 30

// View is the approvals page.
type View struct {
	Pending  []Row
	Answered []Row
	Off      bool // the server has no approval store
	Notice   string
}

// Row is one approval as the page shows it.
type Row struct {
	approval.Approval
	Requested, Decided string
}

// List is GET /approvals.
func (p *Pages) List(c echo.Context) error {
	v := View{Off: p.store == nil, Notice: c.QueryParam("answered")}
	if p.store != nil {
		ctx := c.Request().Context()
		pending, err := p.store.Approvals(ctx, approval.Filter{Status: approval.Pending, Limit: trace.MaxLimit})
		if err != nil {
			return fmt.Errorf("list approvals: %w", err)
		}
		all, err := p.store.Approvals(ctx, approval.Filter{Limit: len(pending) + recentAnswered})
		if err != nil {
			return fmt.Errorf("list approvals: %w", err)
		}
		v.Pending = rows(pending)
		for _, a := range all {
			if a.Status != approval.Pending {
				v.Answered = append(v.Answered, row(a))
			}
		}
	}
	return core.Render(c, http.StatusOK, Page(core.Page(c, "Approvals", "/approvals"), v))
}

func rows(list []approval.Approval) []Row {
	out := make([]Row, len(list))
	for i, a := range list {
		out[i] = row(a)
	}
	return out
}

func row(a approval.Approval) Row {
	r := Row{Approval: a, Requested: a.RequestedAt.Local().Format("2006-01-02 15:04:05")}
	if !a.DecidedAt.IsZero() {
		r.Decided = a.DecidedAt.Local().Format("2006-01-02 15:04:05")
	}
	return r
}

// Approve is POST /approvals/:id/approve; for_run=1 approves the rest of
// the run's calls of the same subject too.
func (p *Pages) Approve(c echo.Context) error {
	return p.answer(c, approval.Answer{Approve: true, ForRun: c.FormValue("for_run") == "1"})
}

// Deny is POST /approvals/:id/deny with the reason the agent is told.
func (p *Pages) Deny(c echo.Context) error {
	why := strings.TrimSpace(c.FormValue("reason"))
	if why == "" {
		why = "denied in the web UI"
	}
	return p.answer(c, approval.Answer{Note: why})
}

// answer records the answer and goes back where the form was (the run
// page or this list).
func (p *Pages) answer(c echo.Context, ans approval.Answer) error {
	if p.store == nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "approvals are not available: the server has no trace store")
	}
	ans.By, ans.At = "web", p.now()
	a, err := p.store.DecideApproval(c.Request().Context(), c.Param("id"), ans)
	if errors.Is(err, approval.ErrDecided) {
		return echo.NewHTTPError(http.StatusConflict, fmt.Sprintf("This call was already answered: %s by %s.", a.Status, a.DecidedBy))
	}
	if err != nil {
		return core.AsMissing(fmt.Errorf("answer approval: %w", err), "approval", c.Param("id"))
	}
	back := c.FormValue("return")
	if !strings.HasPrefix(back, "/runs/") || strings.ContainsAny(back, "\\?#") || strings.Contains(back, "//") {
		back = "/approvals?answered=" + string(a.Status)
	}
	return c.Redirect(http.StatusSeeOther, back)
}

// Section is the run page's "Waiting for approval" section for runID
// (runs.ApprovalSection), nil when nothing of the run waits. Its answers
// return to the run page.
func (p *Pages) Section(ctx context.Context, runID, csrf string) (templ.Component, error) {
	if p.store == nil {
		return nil, nil
	}
	list, err := p.store.Approvals(ctx, approval.Filter{RunID: runID, Status: approval.Pending})
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return RunSection(rows(list), csrf, "/runs/"+runID), nil
}
