package agents_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// crossings is the graph: the old layout drew a→d and a→e through
// the boxes of b and c, so the picture said things the rules do not.
var crossings = map[string]string{
	"a.md": "---\nname: a\ndescription: x\nsubagents: {allow: [b, c, e], deny: [d]}\n---\n",
	"b.md": "---\nname: b\ndescription: x\nsubagents: {allow: [d]}\n---\n",
	"c.md": "---\nname: c\ndescription: x\nsubagents: {allow: [e]}\n---\n",
	"d.md": "---\nname: d\ndescription: x\n---\n",
	"e.md": "---\nname: e\ndescription: x\n---\n",
}

// edgesThroughBoxes samples every drawn edge in the browser and names each
// box, other than its two ends, that an edge passes through.
const edgesThroughBoxes = `(() => {
  const boxes = [...document.querySelectorAll('[data-testid^="node-"]')].map(a => {
    const r = a.querySelector('rect').getBBox();
    return {id: a.dataset.testid.slice(5), r};
  });
  const out = [];
  for (const p of document.querySelectorAll('path.edge')) {
    const {from, to} = p.dataset;
    const len = p.getTotalLength();
    const hit = new Set();
    for (let s = 0; s <= len; s += 2) {
      const pt = p.getPointAtLength(s);
      for (const b of boxes) {
        if (b.id === from || b.id === to) continue;
        if (pt.x > b.r.x + 1 && pt.x < b.r.x + b.r.width - 1 && pt.y > b.r.y + 1 && pt.y < b.r.y + b.r.height - 1) hit.add(b.id);
      }
    }
    for (const id of hit) out.push(from + '→' + to + ' crosses ' + id);
  }
  return out;
})()`

func TestBrowserGraphDrawsNoEdgeThroughAnotherBox(t *testing.T) {
	srv := startBrowserServer(t, crossings)
	ctx := newBrowser(t)
	run(t, ctx, chromedp.Navigate(srv.URL+"/graph"), chromedp.WaitVisible(tid("graph")))
	screenshot(t, ctx, "graph-crossings")
	hits, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](edgesThroughBoxes))
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) > 0 {
		t.Errorf("edges drawn through other boxes: %v", hits)
	}
	// The list's Blocked cell reads as words: the agent, then why.
	blocked, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="graph-row-a"] td:last-child').innerText`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `d denied by agent "a"`; !strings.Contains(blocked, want) {
		t.Errorf("a's Blocked cell reads %q, want it to contain %q", blocked, want)
	}
	// The colours come from the site's CSS by class: a denied edge is red
	// and dashed, an allowed one is not.
	styles, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`['edge-a-d', 'edge-a-b'].map(id => {
	  const s = getComputedStyle(document.querySelector('[data-testid="' + id + '"]'));
	  return s.stroke + ' ' + s.strokeDasharray;
	})`))
	if err != nil {
		t.Fatal(err)
	}
	if styles[0] == styles[1] || !strings.Contains(styles[0], "5px, 4px") {
		t.Errorf("denied edge styled %q, allowed %q: want a dashed line of another colour", styles[0], styles[1])
	}

	// Dark mode: the boxes take the dark card colour from the same CSS.
	light := boxFill(t, ctx)
	run(t, ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
		return err
	}))
	if dark := boxFill(t, ctx); dark == light {
		t.Errorf("box fill is %s in light and dark mode alike", dark)
	}
	screenshot(t, ctx, "graph-crossings-dark")
}

// boxFill is the computed fill of agent a's box.
func boxFill(t *testing.T, ctx context.Context) string {
	t.Helper()
	fill, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('[data-testid="node-a"] rect')).fill`))
	if err != nil {
		t.Fatal(err)
	}
	return fill
}
