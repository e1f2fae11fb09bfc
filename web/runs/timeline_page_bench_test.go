package runs_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/sqlite"
	"github.com/agentry/agentry/web"
)

// BenchmarkTimelinePageSQLite is the whole GET /runs/{id} of a big run as
// a browser gets it the first time: HTTP, middleware, reading the run from
// trace/sqlite (a skeleton read), layout, the first window and render. Each
// iteration builds a fresh server, so nothing is cached; again-ms is a
// second GET on the same server, answered from the kept layout.
func BenchmarkTimelinePageSQLite(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
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
			folder := newMemFolder(team)
			get := func(srv *web.Server) {
				rec := httptest.NewRecorder()
				req := httptest.NewRequest(http.MethodGet, "/runs/big", nil)
				req.Host = "127.0.0.1"
				srv.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d", rec.Code)
				}
			}
			var again time.Duration
			cpu := cpuTime()
			for b.Loop() {
				srv, err := web.New(web.Config{Agents: folder.Reg, Files: folder, Runs: store})
				if err != nil {
					b.Fatal(err)
				}
				get(srv)
				b.StopTimer()
				start := time.Now()
				get(srv)
				again += time.Since(start)
				srv.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
			b.ReportMetric(float64(again.Microseconds())/1000/float64(b.N), "again-ms")
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op") // both GETs
		})
	}
}

// BenchmarkRunsListSQLite is GET /runs over a full page of 25 runs of 400
// spans each, read from trace/sqlite: the list reads each run's spans to
// tally the ones that are not ok ("ok · 2 denied"). cold-ms is the first
// request (every tally read from the store), ms/op the following ones
// (the tallies of ended runs come from memory).
func BenchmarkRunsListSQLite(b *testing.B) {
	store, err := sqlite.Open(filepath.Join(b.TempDir(), "traces.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	for i := range 25 {
		run, spans := bigRun(400)
		prefix := fmt.Sprintf("r%d-", i)
		run.ID = prefix + run.ID
		for j := range spans {
			spans[j].RunID, spans[j].ID = run.ID, prefix+spans[j].ID
			if spans[j].ParentID != "" {
				spans[j].ParentID = prefix + spans[j].ParentID
			}
		}
		if err := store.Apply(context.Background(), []trace.Run{run}, spans); err != nil {
			b.Fatal(err)
		}
	}
	folder := newMemFolder(team)
	srv, err := web.New(web.Config{Agents: folder.Reg, Files: folder, Runs: store})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	get := func() {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/runs", nil)
		req.Host = "127.0.0.1"
		srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "r24-big") {
			b.Fatalf("status %d", rec.Code)
		}
	}
	start := time.Now()
	get()
	cold := time.Since(start)
	b.ResetTimer()
	for b.Loop() {
		get()
	}
	b.ReportMetric(float64(cold.Microseconds())/1000, "cold-ms")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
}

// cpuTime is the CPU time this process has used: on a shared machine it
// moves less with the load than wall time does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
