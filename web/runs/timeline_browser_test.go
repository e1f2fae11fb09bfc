package runs_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
	"github.com/agentry/agentry/web"
	"github.com/agentry/agentry/web/runs"
)

// TestBrowserSpanDetailsOpenWhereTheEyeIs clicks a span deep in the
// waterfall and checks that its details appear inside the window, titled for
// people; then "Next error" selects the span where the failure began.
func TestBrowserSpanDetailsOpenWhereTheEyeIs(t *testing.T) {
	store := memory.New()
	r, spans := runs.FailedChain()
	if err := store.Apply(context.Background(), []trace.Run{r}, spans); err != nil {
		t.Fatal(err)
	}
	bs := startBrowserServer(t, team, func(c *web.Config) { c.Runs = store })
	ctx := newBrowser(t)
	run(t, ctx, chromedp.EmulateViewport(1280, 600), chromedp.Navigate(bs.URL+"/runs/r1"))
	waitJS(t, ctx, `!!document.querySelector('#tl-page[data-ready="true"]')`, "the timeline page")
	run(t, ctx, chromedp.Click(chromedp.CSS(`.tl-node[data-id="late"] > .tl-row .tl-name`)))
	waitText(t, ctx, "detail-title", "Tool call filesystem.read_file")
	inView := `(function(){ var r = document.querySelector('[data-testid=detail-title]').getBoundingClientRect();
		return r.top >= 0 && r.bottom <= window.innerHeight; })()`
	if !evalJS[bool](t, ctx, inView) {
		t.Error("the details of the clicked span are outside the window")
	}
	// The status badge keeps its word on one line beside a title that wraps
	// ("ok" once stood as "o" over "k" in a squeezed circle).
	badgeLines := `(() => { const r = document.createRange(); r.selectNodeContents(document.querySelector('[data-testid=detail-status]'));
		return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size; })()`
	if n := evalJS[int](t, ctx, badgeLines); n != 1 {
		t.Errorf("the detail's status badge takes %d lines", n)
	}
	screenshot(t, ctx, "timeline-details")

	// Next error from the top: the root failed because its child did; the
	// failure began at the child's model call.
	run(t, ctx, chromedp.Navigate(bs.URL+"/runs/r1"))
	waitJS(t, ctx, `!!document.querySelector('#tl-page[data-ready="true"]')`, "the timeline page")
	run(t, ctx, chromedp.Click(tid("next-error")))
	waitText(t, ctx, "detail-title", "Model call (demo)")
	if got := evalJS[string](t, ctx, `document.querySelector('.tl-row.selected').parentElement.getAttribute('data-id')`); got != "wchat" {
		t.Errorf("next error selected %q, want wchat", got)
	}
	if !evalJS[bool](t, ctx, inView) {
		t.Error("the details of the next error are outside the window")
	}
	// A narrow window docks the details at the bottom, still in view.
	run(t, ctx, chromedp.EmulateViewport(800, 600))
	if !evalJS[bool](t, ctx, inView) {
		t.Error("in a narrow window the details are outside it")
	}
	screenshot(t, ctx, "timeline-details-narrow")
	run(t, ctx, chromedp.Click(tid("close-detail")))
	waitJS(t, ctx, `!document.querySelector('[data-testid=detail-title]') && !document.querySelector('#tl-page.has-detail')`, "the details closed")
}
