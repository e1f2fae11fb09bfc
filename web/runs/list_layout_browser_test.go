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

// On a phone (390px) the runs list keeps each header over its own column:
// the task column hides, and its header with it (the header "Task" once
// stood over the start times, and every later header one column off), and
// the page does not grow wider than the window.
func TestBrowserTheRunsListFitsAPhone(t *testing.T) {
	store := memory.New()
	r, spans := runs.FailedChain()
	if err := store.Apply(context.Background(), []trace.Run{r}, spans); err != nil {
		t.Fatal(err)
	}
	bs := startBrowserServer(t, team, func(c *web.Config) { c.Runs = store })
	ctx := newBrowser(t)
	run(t, ctx, chromedp.EmulateViewport(390, 800), chromedp.Navigate(bs.URL+"/runs"), chromedp.WaitVisible(tid("runs-table")))
	misplaced := evalJS[[]string](t, ctx, `(() => {
		const shown = e => e.getBoundingClientRect().width > 0;
		const heads = [...document.querySelectorAll('[data-testid="runs-table"] thead th')].filter(shown);
		const cells = [...document.querySelector('[data-testid="run-row"]').children].filter(shown);
		if (heads.length !== cells.length) return [heads.length + " headers over " + cells.length + " cells"];
		return heads.filter((h, i) => Math.abs(h.getBoundingClientRect().left - cells[i].getBoundingClientRect().left) > 1)
			.map(h => h.textContent.trim()); })()`)
	if len(misplaced) > 0 {
		t.Errorf("at 390px these headers are not over their column: %q", misplaced)
	}
	if over := evalJS[float64](t, ctx, `document.documentElement.scrollWidth - window.innerWidth`); over > 0 {
		t.Errorf("at 390px the page is %.0fpx wider than the window", over)
	}
	screenshot(t, ctx, "runs-list-390")
}
