package runs_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/sqlite"
	"github.com/agentry/agentry/web"
)

// BenchmarkTimelinePage10kSQLite is the whole GET /runs/{id} of a
// 10,000-span run as a browser gets it: HTTP, middleware, reading the run
// and its spans from trace/sqlite, layout and render.
// BenchmarkTimelineBuild10k measures the layout alone (tree, axis, critical
// path, counts) for a 10,000-span run.
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
	srv, err := web.New(web.Config{Agents: folder.Reg, Files: folder, Runs: store})
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
