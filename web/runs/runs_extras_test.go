package runs_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"

	"github.com/agentry/agentry/web/internal/dom"
	"github.com/agentry/agentry/web/runs"
)

func TestCostShowsInTheHeaderTheRollupAndTheSortedList(t *testing.T) {
	e := newRunsEnv(t)
	e.seed("cheap", "coord", "a", trace.StatusOK, 1)
	e.seed("free", "coord", "b", trace.StatusOK, 2)
	run, spans := fanOut()
	run.CostUSD = 0.42
	spans[1].Agent, spans[1].Attributes = "coord", map[string]any{semconv.AttrCostUSD: 0.40}
	spans[6].Agent, spans[6].Attributes = "coord", map[string]any{semconv.AttrCostUSD: 0.02}
	if err := e.store.Apply(context.Background(), []trace.Run{run}, spans); err != nil {
		t.Fatal(err)
	}
	r, _ := e.store.Run(context.Background(), "cheap")
	r.CostUSD = 0.003
	e.store.Apply(context.Background(), []trace.Run{r}, nil)

	_, doc := e.Get("/runs?sort=cost")
	var order []string
	for _, row := range findAll(doc, "run-link") {
		order = append(order, attr(row, "href"))
	}
	if strings.Join(order, " ") != "/runs/r1 /runs/cheap /runs/free" {
		t.Errorf("by cost: %v", order)
	}
	if got := textOf(find(doc, "run-cost-cell")); got != "$0.42" {
		t.Errorf("first cost cell %q", got)
	}
	if href := attr(find(doc, "sort-cost"), "href"); href != "/runs" {
		t.Errorf("the sorted column's link %q should go back to newest first", href)
	}
	_, doc = e.Get("/runs/r1")
	if got := textOf(find(doc, "run-cost")); got != "$0.42" {
		t.Errorf("header cost %q", got)
	}
	if got := textOf(find(doc, "rollup-cost")); got != "$0.42" {
		t.Errorf("coord's rollup cost %q", got)
	}
}

func TestABudgetStoppedRunOffersToContinue(t *testing.T) {
	e := newRunsEnv(t)
	e.seed("stopped", "coord", "count the fruit", trace.StatusLimit, 1)
	r, _ := e.store.Run(context.Background(), "stopped")
	r.Result = "The run stopped at its budget: 180 tokens used of a budget of 150.\n...\nContinue with a larger budget: agentry run --continue stopped --budget-tokens 420\n"
	r.Model = "script:/anywhere/evil.yaml"
	e.store.Apply(context.Background(), []trace.Run{r}, nil)
	_, doc := e.Get("/runs/stopped")
	if got := attr(find(doc, "continue-tokens"), "value"); got != "420" {
		t.Fatalf("continue form offers %q tokens, want the report's 420", got)
	}
	status, _, resp := e.Post("/runs/stopped/continue", url.Values{"budget_tokens": {"420"}}, dom.CSRFOf(doc))
	if status != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/runs/") {
		t.Fatalf("continue: %d %q", status, resp.Header.Get("Location"))
	}
	all := e.runner.Started()
	got := all[len(all)-1]
	if got.Agent != "coord" || got.Budget.Tokens != 420 || got.Model != "" || !strings.Contains(got.Task, "This continues run stopped") {
		t.Errorf("started %+v; want coord, 420 tokens, each agent's own model (not the unchecked script)", got)
	}
	if status, _, _ := e.Post("/runs/stopped/continue", url.Values{}, dom.CSRFOf(doc)); status != http.StatusBadRequest {
		t.Errorf("continue without a budget: %d", status)
	}
	e.seed("fine", "coord", "x", trace.StatusOK, 2)
	if status, _, _ := e.Post("/runs/fine/continue", url.Values{"budget_tokens": {"10"}}, dom.CSRFOf(doc)); status != http.StatusConflict {
		t.Errorf("continuing an ok run: %d", status)
	}
}

func TestTheDecisionShowsInTheSpanDetail(t *testing.T) {
	run, spans := fanOut()
	_ = run
	sp := spans[2]
	sp.Events = []trace.Event{
		{Time: sp.StartedAt, Name: semconv.EventApprovalRequested, Attributes: map[string]any{semconv.EventAttrApprovalID: "ap1", semconv.EventAttrAsk: "needs approval for each call"}},
		{Time: sp.StartedAt.Add(4 * time.Second), Name: semconv.EventApproval, Attributes: map[string]any{
			semconv.EventAttrApprovalID: "ap1", semconv.EventAttrVerdict: "denied", semconv.EventAttrDecidedBy: "web", semconv.EventAttrReason: "not now"}},
	}
	d := runs.BuildSpanDetail(sp)
	if len(d.Events) != 2 || d.Events[1].Name != "approval" || d.Events[1].Offset != "+4.00 s" {
		t.Fatalf("events %+v", d.Events)
	}
	got := map[string]string{}
	for _, a := range d.Events[1].Attrs {
		got[a.Key] = a.Value
	}
	if got["decided_by"] != "web" || got["verdict"] != "denied" || got["reason"] != "not now" {
		t.Errorf("approval event attrs %v", got)
	}
}
