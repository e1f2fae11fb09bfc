package history_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/web/internal/webtest"
)

// runCoordinator runs research-coordinator on the demo model and returns
// the run's ID once its trace is in the store.
func runCoordinator(t *testing.T, site *webtest.Site) string {
	t.Helper()
	res, err := site.Runtime.Run(context.Background(), delegation.Request{Agent: "research-coordinator", Task: "Q4 sales", Model: "demo"})
	if err != nil || res.Status != "ok" {
		t.Fatalf("run: %+v, %v", res, err)
	}
	if err := site.Recorder.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	return res.RunID
}

// saveDescription edits the description in the browser and saves.
func saveDescription(t *testing.T, ctx context.Context, site *webtest.Site, text string) {
	t.Helper()
	webtest.Run(t, ctx, chromedp.Navigate(site.URL+"/agents/research-coordinator"), chromedp.WaitVisible(webtest.TID("agent-form")),
		chromedp.SetValue(webtest.TID("field-description"), text), chromedp.Click(webtest.TID("save")))
	webtest.WaitText(t, ctx, "saved", "research-coordinator.md")
}

func versionOf(t *testing.T, ctx context.Context, site *webtest.Site, runID string) (version string, changed bool) {
	t.Helper()
	webtest.Run(t, ctx, chromedp.Navigate(site.URL+"/runs/"+runID), chromedp.WaitVisible(webtest.TID("agent-versions")))
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="agent-version"][data-agent="research-coordinator"]').dataset.version`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.querySelector('[data-testid="agent-version"][data-agent="research-coordinator"] [data-testid="version-changed"]')`))
	if err != nil {
		t.Fatal(err)
	}
	return v, c
}

func TestBrowserTwoEditsAreThreeVersionsAndRestoreBringsBackTheFirstByteForByte(t *testing.T) {
	site := webtest.StartVersionedSite(t, webtest.ResearchTeam(t))
	v1 := site.ReadAgentFile(t, "research-coordinator.md")
	before := runCoordinator(t, site)
	ctx := webtest.NewBrowser(t)

	saveDescription(t, ctx, site, "Plans a research question and merges the specialists' findings.")
	v2 := site.ReadAgentFile(t, "research-coordinator.md")
	saveDescription(t, ctx, site, "Plans a research question, checks every citation, and writes one sourced brief.")
	v3 := site.ReadAgentFile(t, "research-coordinator.md")
	after := runCoordinator(t, site)
	if v1 == v2 || v2 == v3 {
		t.Fatal("a save did not change the file")
	}

	webtest.Run(t, ctx, chromedp.Navigate(site.URL+"/agents/research-coordinator"))
	webtest.Follow(t, ctx, webtest.TID("agent-history"), "versions")
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="version"]')).map(r =>
		[r.dataset.hash, r.cells[4].textContent.trim(), r.querySelector('[data-testid="version-summary"]').textContent.trim(),
		 r.querySelector('[data-testid="version-runs"]').textContent.trim(), !!r.querySelector('[data-testid="current-version"]')].join(' | '))`))
	if err != nil {
		t.Fatal(err)
	}
	short := func(id string) string { return id[:8] }
	want := []string{
		registry.Hash([]byte(v3)) + " | web | description changed | " + short(after) + " | true",
		registry.Hash([]byte(v2)) + " | web | description changed |  | false",
		registry.Hash([]byte(v1)) + " | filesystem | created (" + fmt.Sprint(strings.Count(v1, "\n")) + " lines) | " + short(before) + " | false",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("History lists\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	webtest.Screenshot(t, ctx, "history")

	// Each run shows the version it ran; the earlier one says it changed since.
	if v, changed := versionOf(t, ctx, site, before); v != registry.Hash([]byte(v1)) || !changed {
		t.Errorf("the run before the edits shows version %s (changed since: %v), want %s and true", v, changed, registry.Hash([]byte(v1)))
	}
	webtest.WaitJS(t, ctx, `!!document.querySelector('[data-testid="row-changed"]')`, "the coordinator's row to say its file changed since")
	webtest.Screenshot(t, ctx, "run-version-changed")
	if v, changed := versionOf(t, ctx, site, after); v != registry.Hash([]byte(v3)) || changed {
		t.Errorf("the run after the edits shows version %s (changed since: %v), want %s and false", v, changed, registry.Hash([]byte(v3)))
	}

	// The two edits side by side: the frontmatter's description changed, the body is the same.
	webtest.Run(t, ctx, chromedp.Navigate(site.URL+"/agents/research-coordinator/history"))
	webtest.Follow(t, ctx, webtest.TID("diff-submit"), "diff-Frontmatter")
	webtest.WaitText(t, ctx, "diff-Frontmatter", "checks every citation")
	changedRows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="diff-Frontmatter"] [data-testid="diff-row-chg"]').length`))
	if err != nil || changedRows != 1 {
		t.Errorf("%d changed frontmatter lines between the two edits, want 1 (%v)", changedRows, err)
	}
	webtest.WaitText(t, ctx, "diff-Body", "The same in both")
	webtest.Screenshot(t, ctx, "history-diff")

	// Restore version 1: a save like any other, byte for byte.
	webtest.Run(t, ctx, chromedp.Navigate(site.URL+"/agents/research-coordinator/history"),
		chromedp.Click(chromedp.CSS(`[data-testid="restore-form"][data-hash="`+registry.Hash([]byte(v1))+`"] button`)))
	webtest.WaitText(t, ctx, "restored-notice", "Restored version "+registry.Hash([]byte(v1))[:12])
	if got := site.ReadAgentFile(t, "research-coordinator.md"); got != v1 {
		t.Fatalf("after the restore the file is\n%q\nwant version 1\n%q", got, v1)
	}
	newest, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="version"] [data-testid="version-summary"]').textContent.trim()`))
	if err != nil || newest != "restore of "+registry.Hash([]byte(v1))[:12]+": description changed" {
		t.Errorf("the restore's version says %q (%v)", newest, err)
	}
}

// With one version there is no pair to compare and nothing to restore: the
// page lists the version plainly, without the A and B buttons, the Compare
// button or an empty Restore section.
func TestBrowserASingleVersionIsListedWithoutCompareOrRestore(t *testing.T) {
	site := webtest.StartVersionedSite(t, webtest.ResearchTeam(t))
	v1 := site.ReadAgentFile(t, "research-coordinator.md")
	ctx := webtest.NewBrowser(t)
	webtest.Run(t, ctx, chromedp.Navigate(site.URL+"/agents/research-coordinator/history"), chromedp.WaitVisible(webtest.TID("versions")))
	webtest.WaitText(t, ctx, "one-version", "nothing to compare")
	webtest.Screenshot(t, ctx, "history-one-version")
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[
		document.querySelectorAll('[data-testid="version"]').length,
		document.querySelector('[data-testid="version"]').dataset.hash,
		document.querySelectorAll('[data-testid="versions"] input[type="radio"]').length,
		!!document.querySelector('[data-testid="diff-form"], [data-testid="diff-submit"], [data-testid="restore-form"]'),
		Array.from(document.querySelectorAll('h2')).map(h => h.textContent).join(',')].join(' | ')`))
	if want := "1 | " + registry.Hash([]byte(v1)) + " | 0 | false | "; err != nil || got != want {
		t.Errorf("the History of one version shows (rows | hash | radios | compare or restore | headings)\n%s\nwant\n%s (%v)", got, want, err)
	}
}
