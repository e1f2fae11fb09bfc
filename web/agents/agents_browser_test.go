package agents_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

func TestBrowserCreateAnAgentThenHitACycleThenSave(t *testing.T) {
	srv := startBrowserServer(t, team)
	ctx := newBrowser(t)

	run(t, ctx, chromedp.Navigate(srv.URL+"/agents/new"), chromedp.WaitVisible(tid("agent-form")))
	run(t, ctx, chromedp.SendKeys(tid("field-name"), "reviewer"))
	run(t, ctx,
		chromedp.SendKeys(tid("field-description"), "Reviews drafts before they ship."),
		chromedp.SendKeys(tid("picker-input-subagents.allow"), "writer"+kb.Enter),
	)
	typeInto(t, ctx, "field-body", "# Reviewer\n\nYou review. <script>window.pwned=1</script>")
	waitText(t, ctx, "preview", "Reviewer")
	pwned, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.pwned === 1 || !!document.querySelector('#preview script')`))
	if err != nil || pwned {
		t.Fatalf("the preview ran or kept a script (err %v)", err)
	}
	screenshot(t, ctx, "editor-new")
	run(t, ctx, chromedp.Click(tid("save")))
	waitText(t, ctx, "saved", "reviewer.md")
	got := srv.ReadAgentFile(t, "reviewer.md")
	for _, want := range []string{"name: reviewer", "description: Reviews drafts before they ship.", "writer", "# Reviewer"} {
		if !strings.Contains(got, want) {
			t.Errorf("reviewer.md lacks %q:\n%s", want, got)
		}
	}

	// writer may not call back into reviewer: reviewer → writer → reviewer is a cycle.
	run(t, ctx,
		chromedp.Navigate(srv.URL+"/agents/writer"),
		chromedp.WaitVisible(tid("agent-form")),
		chromedp.SendKeys(tid("picker-input-subagents.allow"), "reviewer"+kb.Enter),
		chromedp.Click(tid("save")),
	)
	waitText(t, ctx, "problem-subagents.allow", "cycle")
	screenshot(t, ctx, "editor-cycle-error")
	if got := srv.ReadAgentFile(t, "writer.md"); got != team["writer.md"] {
		t.Fatalf("writer.md was saved despite the cycle:\n%s", got)
	}

	// Remove the chip again, change the description, and save for real.
	run(t, ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="picker-subagents.allow"] [data-remove]`)),
		chromedp.Clear(tid("field-description")),
		chromedp.SendKeys(tid("field-description"), "Writes clear text."),
		chromedp.Click(tid("save")),
	)
	waitText(t, ctx, "saved", "writer.md")
	if got := srv.ReadAgentFile(t, "writer.md"); !strings.Contains(got, "description: Writes clear text.") || strings.Contains(got, "reviewer") {
		t.Errorf("writer.md after the fix:\n%s", got)
	}
}

func TestBrowserListShowsAFileDroppedIntoTheFolder(t *testing.T) {
	srv := startBrowserServer(t, team)
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(srv.URL+"/agents"), chromedp.WaitVisible(tid("agent-row-lead")))
	srv.WriteAgentFile(t, "dropped.md", "---\nname: dropped\ndescription: Arrived by file.\n---\nHi.\n")
	waitText(t, ctx, "agent-row-dropped", "Arrived by file.")
	srv.WriteAgentFile(t, "broken.md", "---\nname: broken\n")
	waitText(t, ctx, "agent-row-broken", "broken")
	screenshot(t, ctx, "agents-list")

	run(t, ctx, chromedp.SendKeys(tid("agent-search"), "dropp"))
	waitJS(t, ctx, `document.querySelectorAll('[data-testid^="agent-row-"]').length === 1`, "the search to narrow the list to one row")
}

func TestBrowserSavingAfterAnOutsideEditShowsTheConflict(t *testing.T) {
	srv := startBrowserServer(t, team)
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(srv.URL+"/agents/intern"), chromedp.WaitVisible(tid("agent-form")))
	outside := "---\nname: intern\ndescription: Changed in another editor.\n---\nYou help.\n"
	srv.WriteAgentFile(t, "intern.md", outside)
	srv.WaitRegistry(t, "intern.md", outside)
	run(t, ctx,
		chromedp.Clear(tid("field-description")),
		chromedp.SendKeys(tid("field-description"), "Changed in the browser."),
		chromedp.Click(tid("save")),
	)
	waitText(t, ctx, "conflict", "changed on disk")
	waitText(t, ctx, "conflict-disk", "Changed in another editor.")
	waitText(t, ctx, "conflict-yours", "Changed in the browser.")
	screenshot(t, ctx, "editor-conflict")
	if got := srv.ReadAgentFile(t, "intern.md"); got != outside {
		t.Fatalf("the outside edit was overwritten:\n%s", got)
	}
}

func TestBrowserGraphAndPermissionsPages(t *testing.T) {
	srv := startBrowserServer(t, team)
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(srv.URL+"/graph"), chromedp.WaitVisible(tid("graph")))
	kinds, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`['edge-lead-analyst','edge-lead-intern','edge-lead-writer'].map(id => document.querySelector('[data-testid="'+id+'"]')?.getAttribute('data-kind') || 'missing')`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(kinds, ",") != "allowed,denied,to-disabled" {
		t.Errorf("edge kinds = %v", kinds)
	}
	if hits, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](edgesThroughBoxes)); err != nil || len(hits) > 0 {
		t.Errorf("edges drawn through other boxes: %v (err %v)", hits, err)
	}
	screenshot(t, ctx, "graph")
	follow(t, ctx, tid("node-analyst"), "agent-form")
	waitText(t, ctx, "editor-title", "analyst")

	run(t, ctx,
		chromedp.Navigate(srv.URL+"/permissions"),
		chromedp.SetValue(tid("chain-next"), "lead"),
		chromedp.Click(tid("chain-add")),
		// The add swaps the form, chain-next with it: wait for the swap's
		// result, or the next SetValue may hold the old, removed node.
		chromedp.WaitVisible(tid("chain-lead")),
		chromedp.WaitVisible(tid("decisions-tools")),
		chromedp.SetValue(tid("chain-next"), "analyst"),
		chromedp.Click(tid("chain-add")),
		chromedp.WaitVisible(tid("chain-analyst")),
	)
	waitText(t, ctx, "levels", "global → lead → analyst")
	waitText(t, ctx, "decision-tools-web.fetch", "deny")
	screenshot(t, ctx, "permissions")
}

// Turning an agent off from a searched list keeps the search: the table
// the toggle's own response swaps in shows the matching rows, not every
// agent (the registry's change event refreshes it again later, searched).
func TestBrowserToggleKeepsTheSearch(t *testing.T) {
	srv := startBrowserServer(t, team)
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(srv.URL+"/agents?q=intern"), chromedp.WaitVisible(tid("agent-row-intern")))
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.rowsAfterToggle = null;
	  document.body.addEventListener("htmx:afterSwap", e => {
	    if (e.detail.requestConfig && e.detail.requestConfig.verb === "post" && window.rowsAfterToggle === null)
	      window.rowsAfterToggle = [...document.querySelectorAll('[data-testid^="agent-row-"]')].map(r => r.dataset.testid);
	  }); true`)); err != nil {
		t.Fatal(err)
	}
	run(t, ctx, chromedp.Click(`[data-testid="agent-row-intern"] [data-testid="toggle-enabled"]`))
	waitJS(t, ctx, `window.rowsAfterToggle !== null`, "the toggle's response swapped in")
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.rowsAfterToggle`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0] != "agent-row-intern" {
		t.Errorf("the toggle's response to the list searched for intern shows %v", rows)
	}
	if got := srv.ReadAgentFile(t, "intern.md"); !strings.Contains(got, "enabled: false") {
		t.Errorf("intern.md after the toggle:\n%s", got)
	}
}

// With no agents the explorer says so, instead of a bare "global".
func TestBrowserExplorerWithoutAgentsSaysSo(t *testing.T) {
	srv := startBrowserServer(t, map[string]string{})
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(srv.URL+"/permissions"))
	waitText(t, ctx, "explorer-empty", "No agents yet")
	screenshot(t, ctx, "explorer-empty")
}

// A keyboard user turns an agent off and on again with Enter: the list
// swapped in after each toggle keeps the focus on that row's switch (it
// fell to the page's body, so the second Enter did nothing).
func TestBrowserTheToggleKeepsTheKeyboardFocus(t *testing.T) {
	srv := startBrowserServer(t, team)
	ctx := newBrowser(t)
	toggle := `document.querySelector('[data-testid="agent-row-intern"] [data-testid="toggle-enabled"]')`
	run(t, ctx, chromedp.Navigate(srv.URL+"/agents"), chromedp.WaitVisible(tid("agent-row-intern")))
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](toggle+`.focus(), true`)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Off", "On"} { // Enter where the focus is, twice
		run(t, ctx, chromedp.KeyEvent(kb.Enter))
		waitJS(t, ctx, toggle+`.textContent.trim() === "`+want+`"`, "the switch to say "+want)
		time.Sleep(300 * time.Millisecond) // the folder's change event refreshes the list once more
		waitJS(t, ctx, `document.activeElement === `+toggle, "the focus on intern's switch after it says "+want)
	}
	if got := srv.ReadAgentFile(t, "intern.md"); !strings.Contains(got, "enabled: true") {
		t.Errorf("intern.md after off and on again:\n%s", got)
	}
}
