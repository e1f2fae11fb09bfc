package runs_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/sqlite"
	"github.com/agentry/agentry/web"
)

// BenchmarkBrowserRunPage opens a big run's page in headless Chromium, as
// a reader does the first time: each iteration starts a fresh server over
// the same trace/sqlite database (so nothing is cached on the server) and
// navigates to the run. Reported per size, medians over the iterations:
// first-rows-ms (navigation start to the page's "timeline-ready" mark,
// which the script sets once the first rows are placed), dom-nodes (elements
// in the page then) and doc-KB (the HTML document's size). The runs are
// generated here, never committed.
//
//	go test ./web/runs -run '^$' -bench BrowserRunPage -benchtime 3x
func BenchmarkBrowserRunPage(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 300_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			store, err := sqlite.Open(filepath.Join(b.TempDir(), "traces.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer store.Close()
			run, spans := bigRun(n)
			if err := store.Apply(context.Background(), []trace.Run{run}, spans); err != nil {
				b.Fatal(err)
			}
			spans = nil
			ctx := newBrowser(b)
			var ready, nodes, size []float64
			for b.Loop() {
				folder := newMemFolder(team)
				srv, err := web.New(web.Config{Agents: folder.Reg, Files: folder, Runs: store})
				if err != nil {
					b.Fatal(err)
				}
				hs := httptest.NewServer(srv)
				if _, err := chromedp.Run(ctx, chromedp.Navigate(hs.URL+"/runs/"+run.ID)); err != nil {
					b.Fatal(err)
				}
				for {
					ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.querySelector('#tl-page[data-ready="true"]')`))
					if err != nil {
						b.Fatal(err)
					}
					if ok {
						break
					}
				}
				m, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`[performance.getEntriesByName("timeline-ready")[0].startTime,
					document.getElementsByTagName("*").length, performance.getEntriesByType("navigation")[0].decodedBodySize / 1024]`))
				if err != nil {
					b.Fatal(err)
				}
				ready, nodes, size = append(ready, m[0]), append(nodes, m[1]), append(size, m[2])
				if _, err := chromedp.Run(ctx, chromedp.Navigate("about:blank")); err != nil {
					b.Fatal(err)
				}
				hs.CloseClientConnections()
				hs.Close()
				srv.Close()
			}
			b.ReportMetric(median(ready), "first-rows-ms")
			b.ReportMetric(median(nodes), "dom-nodes")
			b.ReportMetric(median(size), "doc-KB")
		})
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
