package agents_test

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserOpensAndFixesEveryFile walks the awkward folder as a newcomer
// would: every row opens, a file with a YAML error shows where, is fixed
// in the raw view, and "Run this agent" leads to the start form with the
// agent chosen.
func TestBrowserOpensAndFixesEveryFile(t *testing.T) {
	srv := startBrowserServer(t, awkward)
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(srv.URL+"/agents"), chromedp.WaitVisible(tid("agents-table")))
	screenshot(t, ctx, "agents-awkward-list")

	run(t, ctx, chromedp.Click(chromedp.CSS(`a[href="/agents/file/twin-2.md"]`)))
	waitText(t, ctx, "editor-path", "twin-2.md")

	run(t, ctx, chromedp.Navigate(srv.URL+"/agents"), chromedp.WaitVisible(tid("agents-table")),
		chromedp.Click(chromedp.CSS(`a[href="/agents/file/yaml-broken.md"]`)))
	waitText(t, ctx, "editor-title", "Broken file yaml-broken.md")
	waitEditor(t, ctx, "raw-text")
	if got := markedLines(t, ctx, "raw-text", "error"); len(got) != 1 || got[0] != "3" {
		t.Errorf("the YAML error is marked at lines %v, want 3 (description: [unclosed)", got)
	}
	screenshot(t, ctx, "editor-yaml-error")
	typeInto(t, ctx, "raw-text", "---\nname: broken\ndescription: Fixed in the browser.\n---\nX.\n")
	run(t, ctx, chromedp.Click(tid("save-raw")))
	waitText(t, ctx, "saved", "yaml-broken.md")
	if got := srv.ReadAgentFile(t, "yaml-broken.md"); got != "---\nname: broken\ndescription: Fixed in the browser.\n---\nX.\n" {
		t.Errorf("after the raw fix the file is:\n%s", got)
	}

	run(t, ctx, chromedp.Navigate(srv.URL+"/agents/typos"), chromedp.WaitVisible(tid("agent-form")))
	screenshot(t, ctx, "editor-invalid-values")

	run(t, ctx, chromedp.Navigate(srv.URL+"/agents/alpha"), chromedp.WaitVisible(tid("run-agent")))
	follow(t, ctx, tid("run-agent"), "new-run-form")
	waitJS(t, ctx, `document.querySelector('[data-testid=run-agent]').value === "alpha"`, "the start form with alpha chosen")
}
