package rundiff

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/compare"
	"github.com/agentry/agentry/web/core"
)

// Store is what the page reads; trace.Store satisfies it.
type Store interface {
	Export(ctx context.Context, id string) (trace.Document, error)
}

// Pages serves the run diff.
type Pages struct{ store Store }

// New builds the page; store may be nil (the page then answers 503).
func New(store Store) *Pages { return &Pages{store: store} }

// Diff is GET /runs/:id/diff/:other: run id (A) beside run other (B).
func (p *Pages) Diff(c echo.Context) error {
	if p.store == nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "Runs are not available: the server has no trace store.")
	}
	ctx := c.Request().Context()
	a, err := p.store.Export(ctx, c.Param("id"))
	if err != nil {
		return core.AsMissing(fmt.Errorf("run diff: %w", err), "run", c.Param("id"))
	}
	b, err := p.store.Export(ctx, c.Param("other"))
	if err != nil {
		return core.AsMissing(fmt.Errorf("run diff: %w", err), "run", c.Param("other"))
	}
	return core.Render(c, http.StatusOK, Page(core.Page(c, "Run diff", "/runs"), Build(compare.Runs(a, b))))
}

// With is GET /runs/:id/diff?with=OTHER, the run page's compare form.
func (p *Pages) With(c echo.Context) error {
	other := strings.TrimSpace(c.QueryParam("with"))
	if other == "" {
		return echo.NewHTTPError(http.StatusBadRequest, "Give the ID of the run to compare with.")
	}
	return c.Redirect(http.StatusSeeOther, "/runs/"+c.Param("id")+"/diff/"+other)
}

// View is the run diff page.
type View struct {
	A, B    RunSide
	Summary string
	Calls   []CallRow
	Added   int
	Dropped int
	Changed int
	Same    int
	Answer  core.DiffSection
}

// RunSide is one run's totals.
type RunSide struct {
	ID, Short, Agent, Status, Duration, Cost string
	Tokens                                   int64
	Chats                                    int
}

// CallRow is one delegation or tool call in both runs.
type CallRow struct {
	Change       string
	Path, Call   string // who called, and what ("delegate → web-researcher", "filesystem.read_file")
	Delegation   bool
	A, B         string // the call in each run, short
	What         string // what changed
	ASpan, BSpan string
	Replay       string // how the replay answered B's call
}

// Build is the page's view of a comparison.
func Build(d compare.Diff) View {
	v := View{A: side(d.A, d.ChatsA), B: side(d.B, d.ChatsB), Summary: d.Summary(),
		Answer: core.SideBySide("Final answer", d.A.Result, d.B.Result)}
	v.Added, v.Dropped, v.Changed = d.Counts()
	for _, c := range d.Calls {
		r := CallRow{Change: string(c.Change), Path: c.Path, Call: c.Tool, Delegation: c.IsDelegation(), What: strings.Join(c.What, ", ")}
		if c.IsDelegation() {
			r.Call = "delegate → " + c.Target
		}
		if c.A != nil {
			r.A, r.ASpan = callText(*c.A), c.A.SpanID
		}
		if c.B != nil {
			r.B, r.BSpan, r.Replay = callText(*c.B), c.B.SpanID, c.B.Replay
		}
		if c.Change == compare.Same {
			v.Same++
		}
		v.Calls = append(v.Calls, r)
	}
	return v
}

func side(r trace.Run, chats int) RunSide {
	s := RunSide{ID: r.ID, Short: r.ID[:min(8, len(r.ID))], Agent: r.Agent, Status: string(r.Status),
		Tokens: r.InputTokens + r.OutputTokens, Chats: chats, Cost: fmt.Sprintf("$%.4f", r.CostUSD)}
	if !r.EndedAt.IsZero() {
		s.Duration = r.EndedAt.Sub(r.StartedAt).Round(time.Millisecond).String()
	}
	return s
}

// callText is a call's status, arguments (a delegation's task) and result, shortened.
func callText(c compare.Call) string {
	return fmt.Sprintf("[%s] %s → %s", c.Status, control.OneLine(c.Args, 160), control.OneLine(c.Result, 160))
}
