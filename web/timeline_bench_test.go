package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/sqlite"
)

// BenchmarkTimelineRender10k measures what GET /runs/{id} does on the server
// for a 10,000-span run, store read excluded: lay the spans out and render
// the whole page. The budget is 200 ms; the figure is ms/op.
func BenchmarkTimelineRender10k(b *testing.B) {
	run, spans := bigRun(10_000)
	p := PageView{Title: "Run", Nav: "/runs", CSRF: "token"}
	var size int
	for b.Loop() {
		tl := BuildTimeline(run, spans, ms(0))
		cw := &countWriter{}
		if err := TimelinePage(p, tl, false).Render(context.Background(), cw); err != nil {
			b.Fatal(err)
		}
		size = cw.n
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
	b.ReportMetric(float64(size)/(1<<20), "MiB/page")
}

// BenchmarkTimelineRender10kOpenAll is the same with every level open
// (?open=all): all 10,000 rows in the page.
func BenchmarkTimelineRender10kOpenAll(b *testing.B) {
	run, spans := bigRun(10_000)
	p := PageView{Title: "Run", Nav: "/runs", CSRF: "token"}
	var size int
	for b.Loop() {
		tl := BuildTimeline(run, spans, ms(0))
		tl.OpenAll()
		cw := &countWriter{}
		if err := TimelinePage(p, tl, false).Render(context.Background(), cw); err != nil {
			b.Fatal(err)
		}
		size = cw.n
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
	b.ReportMetric(float64(size)/(1<<20), "MiB/page")
}

// BenchmarkTimelinePage10kSQLite is the whole GET /runs/{id} of a
// 10,000-span run as a browser gets it: HTTP, middleware, reading the run
// and its spans from trace/sqlite, layout and render.
func BenchmarkTimelinePage10kSQLite(b *testing.B) {
	store, err := sqlite.Open(filepath.Join(b.TempDir(), "traces.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	run, spans := bigRun(10_000)
	if err := store.Apply(context.Background(), []trace.Run{run}, spans); err != nil {
		b.Fatal(err)
	}
	folder := newMemFolder(team)
	srv, err := New(Config{Agents: folder.reg, Files: folder, Runs: store})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	for b.Loop() {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/runs/big", nil)
		req.Host = "127.0.0.1"
		srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}

// BenchmarkTimelineBuild10k measures the layout alone (tree, axis, critical
// path, counts) for a 10,000-span run.
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
