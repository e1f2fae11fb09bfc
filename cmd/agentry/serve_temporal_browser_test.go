package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	"github.com/agentry/agentry/trace"
)

// In Chromium: the start form on Temporal sends the browser to the run's
// page, which follows the workers' trace live from running to ok without a
// reload; the Cancel button of another run ends it cancelled.
func TestTheStartFormOnTemporalInChromium(t *testing.T) {
	addr := temporaltest.Start(t, "agentry-chromium")
	site := newTemporalSite(t, addr, "agentry-chromium", `coord:
  - calls: [{tool: delegate, args: {agent: leaf, task: one}}]
  - {say: all done, latency: 1500ms}
leaf:
  - {say: leaf answer, latency: 1500ms}
`)
	site.startWorker(t)
	base, _ := site.startServe(t)
	ctx := chromium(t)
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	start := func() string {
		t.Helper()
		do("start form", chromedp.Navigate(base+"/runs/new"), chromedp.WaitVisible(`[data-testid="new-run-form"]`),
			chromedp.SetValue(`[data-testid="run-agent"]`, "coord"), chromedp.SendKeys(`[data-testid="run-task-input"]`, "go"),
			chromedp.Click(`[data-testid="start-run"]`))
		waitFor(t, ctx, `location.pathname.startsWith("/runs/") && location.pathname !== "/runs/new" && !!document.querySelector('[data-testid="run-status"]')`, "the run's page")
		path, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimPrefix(path, "/runs/")
	}

	id := start()
	waitFor(t, ctx, `document.querySelector('[data-testid="run-status"]').textContent.includes("running")`, "status running")
	waitFor(t, ctx, `document.querySelector('[data-testid="run-status"]').textContent.includes("ok")`, "status ok, live")
	waitFor(t, ctx, `!!document.querySelector('[data-testid="run-result"]') && document.querySelector('[data-testid="run-result"]').textContent.includes("all done")`, "the result")
	if st := waitWorkflow(t, addr, "agentry-chromium", id); st.String() != "Completed" {
		t.Errorf("workflow %s is %s, want completed", id, st)
	}

	id = start()
	waitSpan(t, site.db, id, "leaf")
	do("cancel", chromedp.Click(`[data-testid="cancel-run"]`))
	waitFor(t, ctx, `document.querySelector('[data-testid="run-status"]').textContent.includes("cancelled")`, "status cancelled")
	if run, _ := waitRun(t, site.db, id, time.Minute); run.Status != trace.StatusCancelled {
		t.Errorf("run ended %s", run.Status)
	}
}

// chromium starts a headless Chromium with a fresh profile for the test.
func chromium(t *testing.T) context.Context {
	t.Helper()
	path := os.Getenv("AGENTRY_CHROMIUM")
	if path == "" {
		var err error
		if path, err = exec.LookPath("chromium"); err != nil {
			t.Fatal("headless Chromium not found: apt-get install -y chromium (as .ci/run does)")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()))
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancelTab(); cancelAlloc(); cancel() })
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("start headless Chromium: %v", err)
	}
	return tab
}

// waitFor waits until expr is true on the current page.
func waitFor(t *testing.T, ctx context.Context, expr, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr)); err == nil && ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("browser: %s not seen within 30 s", what)
}
