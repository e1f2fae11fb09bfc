package web_test

import (
	"maps"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/web/internal/webtest"
)

// Every page of the UI, as a person opens it at a wide and a narrow window:
// the browser's console stays empty (no 404, not even the favicon's; no
// script error), and no page is wider than the window. The screenshots
// (testdata/artifacts/site-*.png) are how a person looks at all of them.
func TestBrowserEveryPageLoadsCleanAtTwoWidths(t *testing.T) {
	agents := maps.Clone(team)
	agents["noisy.md"] = "---\nname: noisy\ndescription: Has a problem.\nmax_turns: lots\n---\nYou do things.\n"
	site := webtest.StartSite(t, agents, nil)
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
	pages := []struct{ name, path string }{
		{"agents", "/agents"}, {"agent-new", "/agents/new"}, {"agent-edit", "/agents/lead"}, {"agent-problem", "/agents/noisy"},
		{"graph", "/graph"}, {"permissions", "/permissions?chain=lead&chain=analyst"},
		{"workflows", "/workflows"}, {"workflow", "/workflows/content-pipeline"}, {"workflow-run-form", "/workflows/content-pipeline/run"},
		{"workflow-edit", "/workflows/content-pipeline/edit"},
		{"runs", "/runs"}, {"run-new", "/runs/new"}, {"run", "/runs/" + agentRun.RunID()}, {"workflow-run", "/runs/" + wfRun.RunID()},
		{"approvals", "/approvals"},
	}
	browser := webtest.NewBrowser(t)
	console := webtest.WatchConsole(t, browser)
	for _, width := range []int64{1400, 800} {
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
			screenshot(t, browser, "site-"+p.name+"-"+map[int64]string{1400: "wide", 800: "narrow"}[width])
		}
	}
}
