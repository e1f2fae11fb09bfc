package runs_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/sqlite"
	"github.com/agentry/agentry/web"
	"github.com/agentry/agentry/web/runs"
)

// TestBrowserFollowsABigRunLive writes a run into trace/sqlite at about
// 10,000 spans a second for 5 seconds while the page follows it live. The
// page keeps one window of rows, so the elements in it stay bounded however
// many spans arrive, and its counts reach every span when the run ends.
func TestBrowserFollowsABigRunLive(t *testing.T) {
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "traces.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	const n, batch, every = 50_001, 500, 50 * time.Millisecond
	run, spans := bigRun(n)
	run.Status, run.EndedAt = trace.StatusRunning, time.Time{}
	spans[0].Status, spans[0].EndedAt = trace.StatusRunning, time.Time{}
	if err := store.Apply(context.Background(), []trace.Run{run}, spans[:1]); err != nil {
		t.Fatal(err)
	}
	bs := startBrowserServer(t, crew, func(c *web.Config) { c.Runs = store })
	ctx := newBrowser(t)
	chromeRun(t, ctx, bs.URL+"/runs/"+run.ID)

	written := make(chan time.Duration, 1)
	go func() {
		start := time.Now()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for i := 1; i < n; i += batch {
			<-tick.C
			if err := store.Apply(context.Background(), nil, spans[i:min(i+batch, n)]); err != nil {
				t.Error(err)
				break
			}
		}
		written <- time.Since(start)
	}()
	var peakNodes, counted int
	var peakHeap float64
	sample := func() {
		m := evalJS[[]float64](t, ctx, `[document.getElementsByTagName("*").length, performance.memory ? performance.memory.usedJSHeapSize : 0,
			parseInt(document.querySelector('.tl-axis-label').textContent)]`)
		peakNodes, peakHeap, counted = max(peakNodes, int(m[0])), max(peakHeap, m[1]), int(m[2])
	}
	var took time.Duration
	for took == 0 {
		sample()
		select {
		case took = <-written:
		case <-time.After(250 * time.Millisecond):
		}
	}
	t.Logf("wrote %d spans in %v (%.0f spans/s); the page counted %d when the writing ended", n-1, took.Round(time.Millisecond), float64(n-1)/took.Seconds(), counted)
	if counted <= 1 { // how close it follows is logged, not asserted: the machine is shared
		t.Errorf("when the writing ended the page counted %d spans: its counters did not follow the run", counted)
	}
	run.Status, run.EndedAt = trace.StatusOK, spans[0].StartedAt.Add(time.Duration(n+10)*time.Millisecond)
	spans[0].Status, spans[0].EndedAt = trace.StatusOK, run.EndedAt
	if err := store.Apply(context.Background(), []trace.Run{run}, spans[:1]); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "run-status", "ok")
	sample()
	notOK := 0
	for _, sp := range spans {
		if runs.NotOK(sp.Status) {
			notOK++
		}
	}
	want := fmt.Sprintf("%d spans · %d not ok", n, notOK)
	if got := evalJS[string](t, ctx, `document.querySelector('.tl-axis-label').textContent`); got != want {
		t.Errorf("at the end the axis says %q, want %q", got, want)
	}
	waitJS(t, ctx, `document.querySelectorAll('[data-testid=group-row]').length === 20`, "the final rows: the root's 20 groups")
	t.Logf("while following: at most %d elements in the page, JS heap at most %.1f MB", peakNodes, peakHeap/1e6)
	if peakNodes > 3_000 {
		t.Errorf("the page grew to %d elements while following the run; a window of rows should stay small", peakNodes)
	}
}

// chromeRun opens a run's timeline and waits until its script is ready.
func chromeRun(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	run(t, ctx, chromedp.Navigate(url))
	waitJS(t, ctx, `!!document.querySelector('#tl-page[data-ready="true"]')`, "the timeline page")
}
