package runs_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/agentry/agentry/web/internal/webtest"
	"github.com/chromedp/chromedp"
)

// The run page leads with the run: one toolbar between the header and the
// waterfall, the legend closed until asked for, and a reply box wide enough
// for its placeholder.
func TestBrowserTheRunPageIsCompact(t *testing.T) {
	b := startRunsBrowser(t)
	ctx := newBrowser(t)
	webtest.Viewport(t, ctx, 1400, 1000)
	startFromForm(t, ctx, b.URL, "coord", "Compare Q4 sales with the sources", "demo")
	waitText(t, ctx, "run-status", "ok")
	run(t, ctx, chromedp.WaitVisible(tid("reply-box")))

	// One toolbar: its parts (the find form's fields, the actions, the
	// legend's switch) share one line at this width.
	tops := evalJS[[]float64](t, ctx, `[...document.querySelectorAll('[data-testid=timeline-toolbar] input, [data-testid=timeline-toolbar] select, [data-testid=timeline-toolbar] .button, [data-testid=timeline-toolbar] summary')].map(e => Math.round(e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2))`)
	if len(tops) < 8 {
		t.Fatalf("found %d controls in the toolbar", len(tops))
	}
	for _, y := range tops {
		if y < tops[0]-6 || y > tops[0]+6 {
			t.Errorf("toolbar controls sit at y %v: more than one row at 1400px", tops)
			break
		}
	}
	header := webtest.BoxOf(t, ctx, `#tl-header`)
	toolbar := webtest.BoxOf(t, ctx, `[data-testid=timeline-toolbar]`)
	waterfall := webtest.BoxOf(t, ctx, `[data-testid=waterfall]`)
	if gap := waterfall.Y - header.Bottom(); gap > 150 {
		t.Errorf("%.0fpx of controls between the run's header and its waterfall (toolbar %.0fpx high)", gap, toolbar.H)
	}
	if waterfall.Y > 900 {
		t.Errorf("the waterfall starts at y %.0f, below the first screen", waterfall.Y)
	}
	if evalJS[bool](t, ctx, `document.querySelector('[data-testid=timeline-legend]').open`) {
		t.Error("the legend is open before it is asked for")
	}
	// The placeholder fits its box.
	if !evalJS[bool](t, ctx, `(() => { const i = document.querySelector('[data-testid=reply-message]');
		const c = document.createElement('canvas').getContext('2d'); c.font = getComputedStyle(i).font;
		return c.measureText(i.placeholder).width <= i.clientWidth - 16; })()`) {
		t.Error("the reply box cuts its placeholder")
	}
	screenshot(t, ctx, "run-page-compact-wide")
	run(t, ctx, chromedp.Click(chromedp.CSS(`[data-testid=timeline-legend] summary`)))
	waitJS(t, ctx, `document.querySelector('[data-testid=timeline-legend]').open`, "the legend to open")
	legend := webtest.BoxOf(t, ctx, `[data-testid=timeline-legend] ul`)
	if legend.Right() > 1400 || legend.X < 0 {
		t.Errorf("the open legend %+v leaves the window", legend)
	}
	screenshot(t, ctx, "run-page-legend-open")
	webtest.Viewport(t, ctx, 800, 1000)
	if over := evalJS[float64](t, ctx, `document.documentElement.scrollWidth - window.innerWidth`); over > 0 {
		t.Errorf("at 800px the run page is %.0fpx wider than the window", over)
	}
	screenshot(t, ctx, "run-page-compact-narrow")
}

// While the first agent runs, the header counts it: never "0 agent invocations".
func TestBrowserARunningRunCountsItsInvocations(t *testing.T) {
	b := startRunsBrowser(t)
	ctx := newBrowser(t)
	startFromForm(t, ctx, b.URL, "coord", "Do two slow things", "script:slow.yaml")
	waitJS(t, ctx, `document.querySelectorAll('.k-invoke_agent.st-running').length === 3`, "both branches running")
	got := evalJS[string](t, ctx, `document.querySelector('[data-testid=run-invocations]').textContent`)
	if !regexp.MustCompile(`^3 agent invocations$`).MatchString(got) {
		t.Errorf("a running run with 3 invocations shows %q", got)
	}
	run(t, ctx, chromedp.Click(tid("cancel-run")))
	waitText(t, ctx, "run-status", "cancelled")
}

// A run watched live ends with a legend of the marks it shows: the live
// stream replaces the legend of every mark it may come to show. The demo
// run never retries nor fails; its second delegation waits for a
// concurrency slot only on a loaded machine, and the legend explains the
// queued mark exactly when a row shows it.
func TestBrowserTheLegendOfAFinishedRunExplainsOnlyItsMarks(t *testing.T) {
	b := startRunsBrowser(t)
	ctx := newBrowser(t)
	startFromForm(t, ctx, b.URL, "coord", "Compare Q4 sales with the sources", "demo")
	waitText(t, ctx, "run-status", "ok")
	waitJS(t, ctx, `!document.querySelector('[data-testid=timeline-legend]').textContent.includes("↻")`, "the legend to drop the marks the run does not show")
	legend := evalJS[string](t, ctx, `document.querySelector('[data-testid=timeline-legend]').textContent`)
	if !strings.Contains(legend, "critical path") || strings.Contains(legend, "not ok") {
		t.Errorf("legend of a clean finished run = %q", legend)
	}
	queued := evalJS[bool](t, ctx, `[...document.querySelectorAll('.tl-badge.queued')].some(e => !e.closest('[data-testid=timeline-legend]'))`)
	if strings.Contains(legend, "queued") != queued {
		t.Errorf("a row shows queued: %v; the legend = %q", queued, legend)
	}
}
