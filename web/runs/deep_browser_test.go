package runs_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/trace"
)

// clickTimer records, in the page, when the next click happened and when
// the rows window next changed after it, so a test can report the time from
// a click to its rows being shown.
const clickTimer = `(() => {
	window.__click = 0; window.__rows = 0;
	document.addEventListener("click", () => { window.__click = performance.now(); window.__rows = 0; }, true);
	new MutationObserver(() => { if (window.__click && !window.__rows) window.__rows = performance.now(); })
		.observe(document.querySelector(".tl-rows"), { childList: true });
	return true; })()`

// TestBrowserExpandsA20000DeepChain clicks the real "Expand all" link on a
// chain 20,000 levels deep: the server computes the view and sends one
// window of rows, drawn flat (nesting 20,000 elements stalls layout, and the
// HTML parser stops nesting at 512). Scrolling reaches the bottom of the
// chain, and collapse and expand work on it.
func TestBrowserExpandsA20000DeepChain(t *testing.T) {
	const n = 20_000
	b := startRunsBrowser(t)
	r, spans := deepChain(n)
	if err := b.store.Apply(context.Background(), []trace.Run{r}, spans); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(b.URL+"/runs/deep"))
	waitJS(t, ctx, `!!document.querySelector('#tl-page[data-ready="true"]')`, "the chain's page")
	evalJS[bool](t, ctx, clickTimer)
	run(t, ctx, chromedp.Click(tid("expand-all")))
	waitJS(t, ctx, `document.querySelector('[data-testid=rows-window]').dataset.view.includes("mode=all") && !!window.__rows`, "the rows of the chain opened whole")
	t.Logf("expand all of a %d-deep chain: rows shown %.0f ms after the click", n, evalJS[float64](t, ctx, `window.__rows - window.__click`))
	if got := evalJS[int](t, ctx, `+document.querySelector('[data-testid=rows-window]').dataset.total`); got != n {
		t.Fatalf("expand all shows %d of the chain's rows, want %d", got, n)
	}
	if got := evalJS[string](t, ctx, `[...document.querySelectorAll('.tl-node')].slice(0, 3).map(n => n.dataset.id).join(" ")`); got != "s0 s1 s2" {
		t.Errorf("the window starts with %q, want the chain's top", got)
	}
	if got := evalJS[int](t, ctx, `document.querySelectorAll('.tl-node .tl-node').length`); got != 0 {
		t.Errorf("%d rows nested in other rows, want rows drawn flat", got)
	}
	if got := evalJS[int](t, ctx, `document.getElementsByTagName("*").length`); got > 3_000 {
		t.Errorf("the page holds %d elements for one window of rows", got)
	}
	viewportShot(t, ctx, "timeline-deep")
	// Scrolling to the end brings the bottom of the chain.
	evalJS[bool](t, ctx, `(() => { const s = document.querySelector('.tl-scroll'); s.scrollTop = s.scrollHeight; return true; })()`)
	last := fmt.Sprintf("s%d", n-1)
	waitJS(t, ctx, `(() => { const n = document.querySelector('.tl-node[data-id="`+last+`"]'); if (!n) return false;
		const r = n.getBoundingClientRect(), s = document.querySelector('.tl-scroll').getBoundingClientRect();
		return r.top >= s.top && r.bottom <= s.bottom + 1; })()`, "the chain's last row in view")
	// Collapse all leaves the root; collapsing row 10 after expand all
	// hides the 19,990 below it, and expanding it shows them again.
	run(t, ctx, chromedp.Click(tid("collapse-all")))
	waitJS(t, ctx, `document.querySelector('[data-testid=rows-window]').dataset.total === "1"`, "the chain collapsed to its root")
	run(t, ctx, chromedp.Click(tid("expand-all")))
	waitJS(t, ctx, `document.querySelector('[data-testid=rows-window]').dataset.total === "20000"`, "the chain whole again")
	run(t, ctx, chromedp.Click(chromedp.CSS(`.tl-node[data-id="s9"] [data-tl=toggle]`)))
	waitJS(t, ctx, `document.querySelector('[data-testid=rows-window]').dataset.total === "10"`, "the chain cut at row 10")
	if got := evalJS[bool](t, ctx, `document.querySelector('.tl-node[data-id="s9"]').classList.contains("collapsed")`); !got {
		t.Error("row 10 is not marked collapsed")
	}
	run(t, ctx, chromedp.Click(chromedp.CSS(`.tl-node[data-id="s9"] [data-tl=toggle]`)))
	waitJS(t, ctx, `document.querySelector('[data-testid=rows-window]').dataset.total === "20000"`, "row 10 expanded again")
}
