package runs

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/agentry/agentry/web/core"
)

// BenchmarkTimelineRender10k measures what GET /runs/{id} does on the server
// for a 10,000-span run, store read excluded: lay the spans out, list the
// rows the default view shows and render the page with its first window.
// The figure is ms/op; MiB/page stays the same at any run size.
func BenchmarkTimelineRender10k(b *testing.B) { benchRender(b, view{}) }

// BenchmarkTimelineRender10kOpenAll is the same with every level open
// (Expand all): the window is as big, the list of visible rows longer.
func BenchmarkTimelineRender10kOpenAll(b *testing.B) { benchRender(b, view{Mode: "all"}) }

func benchRender(b *testing.B, v view) {
	run, spans := bigRun(10_000)
	p := core.PageView{Title: "Run", Nav: "/runs", CSRF: "token"}
	var size int
	for b.Loop() {
		tl := BuildTimeline(run, spans, ms(0))
		rows := tl.visible(v)
		w := RowWindow{RunID: run.ID, Total: len(rows), View: v, Rows: rows[:min(windowRows, len(rows))]}
		w.closed = v.closedIn(&tl, w.Rows)
		cw := &countWriter{}
		if err := TimelinePage(p, &tl, w, PageControls{}).Render(context.Background(), cw); err != nil {
			b.Fatal(err)
		}
		size = cw.n
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
	b.ReportMetric(float64(size)/(1<<20), "MiB/page")
}

func BenchmarkTimelineBuild10k(b *testing.B) {
	run, spans := bigRun(10_000)
	for b.Loop() {
		BuildTimeline(run, spans, ms(0))
	}
	b.ReportMetric(float64(b.Elapsed())/float64(time.Millisecond)/float64(b.N), "ms/op")
}

type countWriter struct{ n int }

func (w *countWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)
