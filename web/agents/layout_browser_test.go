package agents_test

import (
	"fmt"
	"github.com/agentry/agentry/web"
	"maps"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A file with a long problem message must not reshape the agents list: the
// description keeps its share of the table and the page its width.
func TestBrowserALongProblemMessageDoesNotWidenTheStatusColumn(t *testing.T) {
	files := maps.Clone(team)
	files["noisy.md"] = "---\nname: noisy\ndescription: Has a problem whose message is long.\nmax_turns: lots\ntools:\n  allow: [filesystem.read_file, " +
		strings.Repeat("very.long.tool.name.", 6) + "end]\n---\nYou do things.\n"
	srv := startBrowserServer(t, files)
	ctx := newBrowser(t)
	for _, width := range []int64{1400, 800} {
		viewport(t, ctx, width, 1000)
		run(t, ctx, chromedp.Navigate(srv.URL+"/agents"), chromedp.WaitVisible(tid("agents-table")))
		table := boxOf(t, ctx, `[data-testid="agents-table"]`)
		desc := boxOf(t, ctx, `[data-testid="agents-table"] th.desc`)
		status := boxOf(t, ctx, `[data-testid="agents-table"] th.col-status`)
		if desc.W < 0.35*table.W || status.W > 0.25*table.W {
			t.Errorf("at %dpx: description %.0fpx, status %.0fpx of a %.0fpx table", width, desc.W, status.W, table.W)
		}
		over, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth - window.innerWidth`))
		if err != nil || over > 0 {
			t.Errorf("at %dpx the page is %.0fpx wider than the window (%v)", width, over, err)
		}
		if got := textOfTID(t, ctx, "agent-count"); got != "5 agent files · 1 broken" {
			t.Errorf("count line = %q", got)
		}
		screenshot(t, ctx, "agents-long-problem-"+map[int64]string{1400: "wide", 800: "narrow"}[width])
	}
}

// The "unavailable here" note sits under the reason, never over it.
func TestBrowserTheUnavailableNoteDoesNotCoverTheReason(t *testing.T) {
	srv := startBrowserServer(t, team, func(c *web.Config) {
		c.Unavailable = map[string]string{"web.search": "no search backend configured: set web_search: {backend: searxng, url: URL} or {backend: brave, api_key: KEY}"}
	})
	ctx := newBrowser(t)
	for _, width := range []int64{1400, 800} {
		viewport(t, ctx, width, 1000)
		run(t, ctx, chromedp.Navigate(srv.URL+"/permissions?chain=analyst"), chromedp.WaitVisible(tid("decisions-tools")))
		reason := boxOf(t, ctx, `[data-testid="reason-web.search"]`)
		note := boxOf(t, ctx, `[data-testid="unavailable-web.search"]`)
		cell := boxOf(t, ctx, `[data-testid="decision-tools-web.search"] td:last-child`)
		if reason.Overlaps(note) {
			t.Errorf("at %dpx the note %+v covers the reason %+v", width, note, reason)
		}
		if note.Right() > cell.Right()+0.5 || note.Bottom() > cell.Bottom()+0.5 {
			t.Errorf("at %dpx the note %+v runs out of its cell %+v", width, note, cell)
		}
		screenshot(t, ctx, "permissions-unavailable-"+map[int64]string{1400: "wide", 800: "narrow"}[width])
	}
}

// The delegation graph sits in the middle of its box when it is narrower.
func TestBrowserTheDelegationGraphIsCentred(t *testing.T) {
	srv := startBrowserServer(t, team)
	ctx := newBrowser(t)
	for _, width := range []int64{1400, 800} {
		viewport(t, ctx, width, 1000)
		run(t, ctx, chromedp.Navigate(srv.URL+"/graph"), chromedp.WaitVisible(chromedp.CSS(`.graph svg`)))
		box := boxOf(t, ctx, `.graph`)
		svg := boxOf(t, ctx, `.graph svg`)
		if d := (svg.X + svg.W/2) - (box.X + box.W/2); d > 4 || d < -4 {
			t.Errorf("at %dpx the graph's centre is %.0fpx from its box's", width, d)
		}
	}
}

// On a phone (390px) every column of the agents list holds what it shows:
// a model such as "inherit" stays on one line, and no header or cell runs
// into its neighbour ("Model" once overlapped "Status").
func TestBrowserTheAgentsListFitsAPhone(t *testing.T) {
	files := maps.Clone(team)
	files["careful.md"] = "---\nname: careful\ndescription: Uses an unknown tool.\nmodel: inherit\ntools:\n  allow: [Bash]\n---\nYou check.\n"
	srv := startBrowserServer(t, files)
	ctx := newBrowser(t)
	viewport(t, ctx, 390, 900)
	run(t, ctx, chromedp.Navigate(srv.URL+"/agents"), chromedp.WaitVisible(tid("agent-row-careful")))
	overflowing, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="agents-table"] th, [data-testid="agents-table"] td')]
		.filter(c => c.scrollWidth > c.clientWidth + 1).map(c => c.textContent.trim().slice(0, 30))`))
	if err != nil || len(overflowing) > 0 {
		t.Errorf("cells wider than their column at 390px: %q (%v)", overflowing, err)
	}
	for _, c := range []struct{ what, css string }{
		{`the model "inherit"`, `[data-testid="agent-row-careful"] td.mono`},
		{`the status "warning"`, `[data-testid="agent-row-lead"] [data-testid="agent-status"]`},
	} {
		lines, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`(() => {
			const r = document.createRange(); r.selectNodeContents(document.querySelector(%q));
			return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size; })()`, c.css)))
		if err != nil || lines != 1 {
			t.Errorf("%s takes %d lines at 390px (%v)", c.what, lines, err)
		}
	}
	over, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth - window.innerWidth`))
	if err != nil || over > 0 {
		t.Errorf("at 390px the page is %.0fpx wider than the window (%v)", over, err)
	}
	screenshot(t, ctx, "agents-390")
}
