package runs_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/trace"
)

// TestBrowserExpandsA20000DeepChainWhole opens a 20,000-level chain whole:
// its rows are drawn flat (nesting 20,000 elements deep stalls layout, and
// the HTML parser stops nesting at 512), collapse and expand work on them.
func TestBrowserExpandsA20000DeepChainWhole(t *testing.T) {
	const n = 20_000
	b := startRunsBrowser(t)
	r, spans := deepChain(n)
	if err := b.store.Apply(context.Background(), []trace.Run{r}, spans); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	// The big-run page's "Expand all" is a link to this address.
	run(t, ctx, chromedp.Navigate(b.URL+"/runs/deep?open=all"))
	waitJS(t, ctx, `!!document.querySelector('#tl-page[data-ready="true"]')`, "the chain opened whole")
	t.Logf("all %d rows ready %.0f ms after navigation started", n,
		evalJS[float64](t, ctx, `performance.getEntriesByName("timeline-ready")[0].startTime`))
	visible := `[...document.querySelectorAll('.tl-node')].filter(n => !n.hidden).length`
	if got := evalJS[int](t, ctx, visible); got != n {
		t.Fatalf("%d rows shown, want all %d", got, n)
	}
	if got := evalJS[int](t, ctx, `document.querySelectorAll('.tl-rows .tl-kids').length`); got != 0 {
		t.Errorf("%d nested subtrees in a run opened whole, want rows drawn flat", got)
	}
	run(t, ctx, chromedp.Click(tid("collapse-all")))
	if got := evalJS[int](t, ctx, visible); got != 1 {
		t.Errorf("collapse all leaves %d rows, want the root alone", got)
	}
	spent := evalJS[float64](t, ctx, `(() => { const t0 = performance.now(); document.querySelector('[data-testid=expand-all]').click(); document.body.offsetHeight; return performance.now() - t0; })()`)
	t.Logf("expand all of %d rows: %.0f ms", n, spent)
	if got := evalJS[int](t, ctx, visible); got != n {
		t.Errorf("expand all shows %d rows, want %d", got, n)
	}
	viewportShot(t, ctx, "timeline-deep-flat")
	// Collapsing the 10th row hides the 19,990 below it; expanding shows them.
	toggle := `document.querySelectorAll('.tl-node')[9].querySelector('[data-tl=toggle]').click()`
	evalJS[bool](t, ctx, toggle+`, true`)
	if got := evalJS[int](t, ctx, visible); got != 10 {
		t.Errorf("after collapsing row 10, %d rows show, want 10", got)
	}
	evalJS[bool](t, ctx, toggle+`, true`)
	if got := evalJS[int](t, ctx, visible); got != n {
		t.Errorf("after expanding row 10 again, %d rows show, want %d", got, n)
	}
}
