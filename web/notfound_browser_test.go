package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/web/internal/webtest"
)

// A page for something that does not exist says what, in a person's words
// (not the handler's wrapped error, "show run: run …: not found"), and
// links back to the list it belongs to, not always to the agents.
func TestBrowserANotFoundPageSaysWhatIsMissingAndLinksBackToItsList(t *testing.T) {
	site := webtest.StartVersionedSite(t, team)
	ctx := webtest.NewBrowser(t)
	for _, c := range []struct{ path, message, back, label string }{
		{"/runs/nosuch", "There is no run “nosuch”.", "/runs", "Back to the runs"},
		{"/workflows/nosuch", "There is no workflow “nosuch”.", "/workflows", "Back to the workflows"},
		{"/skills/nosuch", "There is no skill “nosuch”.", "/skills", "Back to the skills"},
		{"/agents/nosuch", "There is no agent “nosuch”.", "/agents", "Back to the agents"},
		{"/agents/nosuch/history", "There is no agent “nosuch”.", "/agents", "Back to the agents"},
		{"/evals/nosuch", "There is no eval suite “nosuch”.", "/evals", "Back to the evals"},
		{"/approvals/nosuch/more", "There is nothing at /approvals/nosuch/more.", "/approvals", "Back to the approvals"},
		{"/nosuch", "There is nothing at /nosuch.", "/agents", "Back to the agents"},
	} {
		run(t, ctx, chromedp.Navigate(site.URL+c.path), chromedp.WaitVisible(webtest.TID("error-back")))
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[document.querySelector('[data-testid="error-message"]').textContent.trim(),
			document.querySelector('[data-testid="error-back"]').getAttribute('href'),
			document.querySelector('[data-testid="error-back"]').textContent.trim(),
			(document.querySelector('nav [aria-current="page"]') || {}).textContent || ""]`))
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{c.message, c.back, c.label}; strings.Join(got[:3], " | ") != strings.Join(want, " | ") {
			t.Errorf("%s says\n%s\nwant\n%s", c.path, strings.Join(got[:3], " | "), strings.Join(want, " | "))
		}
		if c.path == "/runs/nosuch" {
			screenshot(t, ctx, "not-found-run")
			if got[3] != "Runs" {
				t.Errorf("%s marks %q as the current nav entry, want Runs", c.path, got[3])
			}
		}
	}
}
