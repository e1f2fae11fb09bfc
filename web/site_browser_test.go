package web_test

import (
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/eval"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/demo"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/web/internal/webtest"
)

// Every page of the UI, as a person opens it at a wide and a narrow window
// and on a phone:
// the browser's console stays empty (no 404, not even the favicon's; no
// script error), and no page is wider than the window. The screenshots
// (testdata/artifacts/site-*.png) are how a person looks at all of them.
func TestBrowserEveryPageLoadsCleanAtThreeWidths(t *testing.T) {
	agents := maps.Clone(team)
	agents["noisy.md"] = "---\nname: noisy\ndescription: Has a problem.\nmax_turns: lots\n---\nYou do things.\n"
	site := webtest.StartVersionedSite(t, agents)
	ctx := t.Context()
	agentRun, err := site.Runtime.Start(ctx, delegation.Request{Agent: "lead", Task: "Plan the quarter"})
	if err != nil {
		t.Fatal(err)
	}
	wf, ok := site.Catalog.Snapshot().Workflow("content-pipeline.yaml")
	if !ok {
		t.Fatal("content-pipeline is not loaded")
	}
	wfRun := workflow.Start(ctx, site.Runtime, wf, "script:content-pipeline.script.yaml",
		workflow.Options{Inputs: map[string]any{"topic": "heat pumps", "audience": "homeowners"}})
	<-agentRun.Done()
	<-wfRun.Done()
	if err := site.Recorder.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	edited, evalID := issue28Fixtures(t, site, agentRun.RunID())
	pages := []struct{ name, path string }{
		{"agents", "/agents"}, {"agent-new", "/agents/new"}, {"agent-edit", "/agents/lead"}, {"agent-problem", "/agents/noisy"},
		{"graph", "/graph"}, {"permissions", "/permissions?chain=lead&chain=analyst"},
		{"workflows", "/workflows"}, {"workflow", "/workflows/content-pipeline"}, {"workflow-run-form", "/workflows/content-pipeline/run"},
		{"workflow-edit", "/workflows/content-pipeline/edit"},
		{"runs", "/runs"}, {"run-new", "/runs/new"}, {"run", "/runs/" + agentRun.RunID()}, {"workflow-run", "/runs/" + wfRun.RunID()},
		{"approvals", "/approvals"},
		{"history", "/agents/lead/history"}, {"history-diff", "/agents/lead/history/diff?b=current&a=" + edited},
		{"run-diff", "/runs/" + agentRun.RunID() + "/diff/" + evalID.run},
		{"evals", "/evals"}, {"eval-suite", "/evals/lead"}, {"eval-compare", "/evals/lead/compare"},
		{"eval-new-case", "/evals/new-case?run=" + agentRun.RunID()},
	}
	browser := webtest.NewBrowser(t)
	console := webtest.WatchConsole(t, browser)
	for _, width := range []int64{1400, 800, 390} {
		webtest.Viewport(t, browser, width, 1000)
		for _, p := range pages {
			run(t, browser, chromedp.Navigate(site.URL+p.path))
			waitJS(t, browser, `document.readyState === "complete"`, p.path+" loaded")
			time.Sleep(300 * time.Millisecond) // scripts and the favicon settle
			if problems := console.Take(); len(problems) > 0 {
				t.Errorf("at %dpx %s: the console says %q", width, p.path, problems)
			}
			over, err := chromedp.Run(browser, chromedp.Evaluate[float64](`document.documentElement.scrollWidth - window.innerWidth`))
			if err != nil || over > 0 {
				t.Errorf("at %dpx %s is %.0fpx wider than the window (%v)", width, p.path, over, err)
			}
			screenshot(t, browser, "site-"+p.name+"-"+map[int64]string{1400: "wide", 800: "narrow", 390: "phone"}[width])
		}
	}
}

// evalFixture names what issue28Fixtures made.
type evalFixture struct{ run string }

// issue28Fixtures gives the History, Evals and run diff pages something to
// show: lead edited once (so it has two versions; the first is returned),
// a suite of lead run twice, and a run after the edit to compare with run.
func issue28Fixtures(t *testing.T, site *webtest.Site, run string) (string, evalFixture) {
	t.Helper()
	first := registry.Hash([]byte(site.ReadAgentFile(t, "lead.md")))
	edited := site.ReadAgentFile(t, "lead.md") + "\nBe brief.\n"
	site.WriteAgentFile(t, "lead.md", edited)
	site.WaitRegistry(t, "lead.md", edited)
	if err := os.WriteFile(filepath.Join(site.Evals, "lead.yaml"), []byte("agent: lead\ncases:\n  - name: plans\n    task: Plan the quarter\n    expect: {output_contains: [quarter], no_denied: true}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := eval.Load(filepath.Join(site.Evals, "lead.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var last string
	for range 2 {
		cfg := delegation.Config{Agents: site.Agents, DefaultModel: "demo", Sink: site.Recorder,
			Models: model.Providers{"demo": func(string) (model.LLM, error) { return demo.New(), nil }}}
		rep, err := eval.Run(t.Context(), s, eval.Options{Runtime: cfg, Label: "current"})
		if err != nil {
			t.Fatal(err)
		}
		if err := site.Store.AddEval(t.Context(), rep.Eval, rep.Cases); err != nil {
			t.Fatal(err)
		}
		last = rep.Cases[0].RunID
	}
	if err := site.Recorder.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	return first, evalFixture{run: last}
}
