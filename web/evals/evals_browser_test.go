package evals_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/eval"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/web/internal/webtest"
)

// runShippedSuite runs evals/research.yaml on the site's agents, stores
// the eval and returns it.
func runShippedSuite(t *testing.T, site *webtest.Site) trace.Eval {
	t.Helper()
	s, err := eval.Load(filepath.Join("..", "..", "evals", "research.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := delegation.Config{Agents: site.Agents, DefaultModel: "demo", Sink: site.Recorder, Logger: slog.New(slog.DiscardHandler),
		Models: model.Providers{"script": func(p string) (model.LLM, error) { return script.Load(p) }},
		Sleep:  func(context.Context, time.Duration) error { return nil }}
	rep, err := eval.Run(context.Background(), s, eval.Options{Runtime: cfg, Label: "current"})
	if err != nil {
		t.Fatal(err)
	}
	if err := site.Recorder.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := site.Store.AddEval(context.Background(), rep.Eval, rep.Cases); err != nil {
		t.Fatal(err)
	}
	return rep.Eval
}

func TestBrowserTheComparisonShowsWhichCasesBrokeAndWhy(t *testing.T) {
	site := webtest.StartVersionedSite(t, webtest.ResearchTeam(t))
	suite, err := os.ReadFile(filepath.Join("..", "..", "evals", "research.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(site.Evals, "research.yaml"), suite, 0o644); err != nil {
		t.Fatal(err)
	}
	good := runShippedSuite(t, site)
	if good.Failed != 0 {
		t.Fatalf("the shipped suite failed on the shipped agents: %+v", good)
	}
	// The regression: the coordinator may no longer ask the citation checker.
	coord := site.ReadAgentFile(t, "research-coordinator.md")
	broken := strings.Replace(coord, "allow: [data-analyst, web-researcher, citation-checker]", "allow: [data-analyst, web-researcher]", 1)
	site.WriteAgentFile(t, "research-coordinator.md", broken)
	site.WaitRegistry(t, "research-coordinator.md", broken)
	bad := runShippedSuite(t, site)
	if bad.Failed != 3 || bad.Version == good.Version {
		t.Fatalf("after the regression: %+v", bad)
	}

	ctx := webtest.NewBrowser(t)
	webtest.Run(t, ctx, chromedp.Navigate(site.URL+"/evals"), chromedp.WaitVisible(webtest.TID("suites")))
	webtest.WaitText(t, ctx, "suite-latest", "2 passed, 3 failed")
	webtest.Follow(t, ctx, chromedp.CSS(`[data-testid="suite"] a`), "evals")
	webtest.Follow(t, ctx, webtest.TID("compare-submit"), "compare-cases")
	webtest.WaitText(t, ctx, "compare-summary", "3 cases broke and 0 were fixed")
	webtest.WaitText(t, ctx, "rate-a", "100% (5/5)")
	webtest.WaitText(t, ctx, "rate-b", "40% (2/5)")
	broke, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="compare-case"][data-change="broke"]')).map(r =>
		r.dataset.name + ': ' + r.querySelector('[data-testid="compare-why"]').textContent.trim())`))
	if err != nil {
		t.Fatal(err)
	}
	if len(broke) != 3 || !strings.Contains(strings.Join(broke, "\n"), "sourced-brief: trajectory: agents any: expected [data-analyst web-researcher citation-checker]") ||
		!strings.Contains(strings.Join(broke, "\n"), "no_denied: 1 denied calls: delegate") {
		t.Errorf("broken cases:\n%s", strings.Join(broke, "\n"))
	}
	webtest.Screenshot(t, ctx, "evals-compare")

	// The two traces of a broken case side by side: the delegation to the
	// citation checker was refused.
	webtest.Follow(t, ctx, chromedp.CSS(`[data-testid="compare-case"][data-name="sourced-brief"] [data-testid="compare-traces"]`), "diff-calls")
	changed, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('[data-testid="diff-call"][data-delegation="true"]'))
		.filter(r => r.dataset.change !== 'same').map(r => r.dataset.change + ' ' + r.cells[2].textContent.trim() + ' ' + r.cells[0].textContent.trim()).join('\n')`))
	if err != nil || !strings.Contains(changed, "changed delegate → citation-checker") || !strings.Contains(changed, "status ok → denied") {
		t.Errorf("the run diff's changed delegations:\n%s (%v)", changed, err)
	}
	webtest.Screenshot(t, ctx, "evals-run-diff")
}

func TestBrowserARunBecomesAnEvalCase(t *testing.T) {
	site := webtest.StartVersionedSite(t, webtest.ResearchTeam(t))
	res, err := site.Runtime.Run(context.Background(), delegation.Request{Agent: "research-coordinator", Task: "Q4 sales in one brief", Model: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	if err := site.Recorder.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx := webtest.NewBrowser(t)
	webtest.Run(t, ctx, chromedp.Navigate(site.URL+"/runs/"+res.RunID))
	webtest.Follow(t, ctx, webtest.TID("add-eval-case"), "case-yaml")
	yaml, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="case-yaml"]').value`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"- name: q4-sales-in-one-brief", "task: Q4 sales in one brief", "citation-checker", "data-analyst", "web-researcher", "order: any", "no_denied: true"} {
		if !strings.Contains(yaml, want) {
			t.Errorf("the case written from the run lacks %q:\n%s", want, yaml)
		}
	}
	webtest.Screenshot(t, ctx, "evals-new-case")
	webtest.Run(t, ctx, chromedp.SetValue(webtest.TID("case-suite"), "briefs"), chromedp.Click(webtest.TID("case-add")))
	webtest.WaitText(t, ctx, "case-added", "briefs.yaml")
	data, err := os.ReadFile(filepath.Join(site.Evals, "briefs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := eval.Parse("briefs.yaml", data)
	if err != nil || s.Agent != "research-coordinator" || len(s.Cases) != 1 || s.Cases[0].Task != "Q4 sales in one brief" {
		t.Fatalf("the new suite:\n%s\n%+v, %v", data, s, err)
	}
	// A second run's case is appended to the same file, the first kept as it was.
	webtest.Run(t, ctx, chromedp.Navigate(site.URL+"/evals/new-case?run="+res.RunID), chromedp.WaitVisible(webtest.TID("case-yaml")))
	webtest.WaitJS(t, ctx, `document.querySelector('[data-testid="case-suite"]').value === "briefs"`, "the form to offer the run's suite")
	webtest.Run(t, ctx, chromedp.Click(webtest.TID("case-add")))
	webtest.WaitText(t, ctx, "case-problem", `case "q4-sales-in-one-brief" is named twice`)
}

// A suite whose file does not parse says why on its own page too, not only
// in the list.
func TestBrowserABrokenSuiteSaysWhyOnItsPage(t *testing.T) {
	site := webtest.StartVersionedSite(t, webtest.ResearchTeam(t))
	if err := os.WriteFile(filepath.Join(site.Evals, "bad.yaml"), []byte("agent: research-coordinator\ncases: []\nbogus: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := webtest.NewBrowser(t)
	webtest.Run(t, ctx, chromedp.Navigate(site.URL+"/evals"))
	webtest.WaitText(t, ctx, "suite-problem", "bad.yaml:3")
	webtest.Run(t, ctx, chromedp.Navigate(site.URL+"/evals/bad"))
	webtest.WaitText(t, ctx, "suite-problem", "bad.yaml:3")
	webtest.Screenshot(t, ctx, "evals-broken-suite")
}
