package runs

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/web/core"
)

// This file holds the run page's parts for issue 13, apart from the
// waterfall: the "Waiting for approval" section, the form that continues a
// run its budget stopped, and cost (header, rollup, runs list).

// ApprovalSection renders the run page's "Waiting for approval" section
// for runID, nil when nothing of the run waits. web/approvals provides it.
type ApprovalSection func(ctx context.Context, runID, csrf string) (templ.Component, error)

// RunExtras are the run page's parts above the header.
type RunExtras struct {
	Approvals templ.Component // nil when nothing waits
	// Continue offers to continue the run with a larger budget: it stopped
	// at its budget and this server can start runs.
	Continue bool
	Tokens   int64 // the budget the report suggests
	RunID    string
	CSRF     string
}

// extras reads what the run page shows above its header.
func (rp *Pages) extras(ctx context.Context, run trace.Run, csrf string) (RunExtras, error) {
	x := RunExtras{RunID: run.ID, CSRF: csrf}
	if rp.approvals != nil && !run.Status.IsFinal() {
		comp, err := rp.approvals(ctx, run.ID, csrf)
		if err != nil {
			return x, fmt.Errorf("approvals of run %s: %w", run.ID, err)
		}
		x.Approvals = comp
	}
	if run.Status == trace.StatusLimit && rp.runner != nil {
		x.Continue, x.Tokens = true, suggestedTokens(run)
	}
	return x, nil
}

var suggestRE = regexp.MustCompile(`--budget-tokens (\d+)`)

// suggestedTokens is the budget the run's report suggests, else twice what
// it used.
func suggestedTokens(run trace.Run) int64 {
	if m := suggestRE.FindStringSubmatch(run.Result); m != nil {
		if n, err := strconv.ParseInt(m[1], 10, 64); err == nil {
			return n
		}
	}
	return control.SuggestTokens(2 * (run.InputTokens + run.OutputTokens))
}

// Continue is POST /runs/:id/continue: a new run of the same agent whose
// task is the old task with its budget report, under the budget given
// (budget_tokens, budget_usd, budget_time), as `agentry run --continue
// RUN_ID` does. The earlier run's model is reused only when the start form
// would accept it; otherwise each agent runs on its own.
func (rp *Pages) Continue(c echo.Context) error {
	if err := rp.needStore(); err != nil {
		return err
	}
	if rp.runner == nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "this server cannot start runs")
	}
	prev, err := rp.store.Run(c.Request().Context(), c.Param("id"))
	if err != nil {
		return core.AsMissing(fmt.Errorf("continue run: %w", err), "run", c.Param("id"))
	}
	if prev.Status != trace.StatusLimit {
		return echo.NewHTTPError(http.StatusConflict, "Only a run its budget stopped can be continued this way; this one ended "+string(prev.Status)+".")
	}
	b, err := formBudget(c)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	model := prev.Model
	if rp.models.CheckModel(rp.models.ModelChoices(), model) != "" {
		model = core.OwnModel
	}
	ex, err := rp.live.Start(rp.runner, RunRequest{Agent: prev.Agent, Task: control.ContinuationTask(prev), Model: model, Budget: b})
	if err != nil {
		return echo.NewHTTPError(http.StatusConflict, "The run could not start: "+summarize(err))
	}
	return c.Redirect(http.StatusSeeOther, "/runs/"+ex.RunID())
}

// formBudget reads the continue form's budget fields; at least one is needed.
func formBudget(c echo.Context) (registry.Budget, error) {
	var b registry.Budget
	var err error
	if s := strings.TrimSpace(c.FormValue("budget_tokens")); s != "" {
		if b.Tokens, err = strconv.ParseInt(s, 10, 64); err != nil || b.Tokens < 1 {
			return b, fmt.Errorf("the token budget %q is not a positive whole number", s)
		}
	}
	if s := strings.TrimSpace(c.FormValue("budget_usd")); s != "" {
		if b.USD, err = strconv.ParseFloat(s, 64); err != nil || b.USD <= 0 {
			return b, fmt.Errorf("the USD budget %q is not a positive number", s)
		}
	}
	if s := strings.TrimSpace(c.FormValue("budget_time")); s != "" {
		if b.WallClock, err = time.ParseDuration(s); err != nil || b.WallClock <= 0 {
			return b, fmt.Errorf("the time budget %q is not a duration such as 15m", s)
		}
	}
	if b.IsZero() {
		return b, fmt.Errorf("give a larger budget to continue with")
	}
	return b, nil
}

// formatCost is a USD amount for the page, "" for none.
func formatCost(usd float64) string {
	switch {
	case usd <= 0:
		return ""
	case usd < 0.01:
		return fmt.Sprintf("$%.4f", usd)
	}
	return fmt.Sprintf("$%.2f", usd)
}

// runCost is the run's cost: what the runtime kept, else the sum of its
// chat spans (runs recorded before runs kept it).
func runCost(run trace.Run, spans []trace.Span) float64 {
	if run.CostUSD > 0 {
		return run.CostUSD
	}
	total, _ := trace.CostRollup(spans)
	return total
}

// addCosts puts each agent's cost on its rollup row.
func addCosts(rows []RollupRow, spans []trace.Span) {
	_, by := trace.CostRollup(spans)
	for i := range rows {
		rows[i].Cost = formatCost(by[rows[i].Agent])
	}
}

// costSort is the Cost column's aria-sort value.
func costSort(sort string) string {
	if sort == trace.SortCost {
		return "descending"
	}
	return "none"
}
