package sqlite_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/sqlite"
	"github.com/agentry/agentry/trace/tracetest"
)

func openBench(b *testing.B) (*sqlite.Store, string) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "traces.db")
	s, err := sqlite.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	return s, path
}

// BenchmarkRecorderIngest measures spans per second written through a
// Recorder into SQLite, each span recorded at its start and at its end, and
// the database size per span. "adjacent" records the end right after the
// start (short spans: the Recorder coalesces them into one row write);
// "apart" records it 8192 spans later, so start and end are separate writes.
func BenchmarkRecorderIngest(b *testing.B) {
	for _, c := range []struct {
		name string
		lag  int
	}{{"adjacent", 0}, {"apart", 8192}} {
		b.Run(c.name, func(b *testing.B) { benchIngest(b, c.lag) })
	}
}

func benchIngest(b *testing.B, lag int) {
	s, path := openBench(b)
	rec := trace.NewRecorder(s, trace.RecorderConfig{})
	base := time.Now()
	const perRun = 10_000
	var open []trace.Span
	runID := ""
	b.ResetTimer()
	cpu0 := cpuTime()
	for n := range b.N {
		if n%perRun == 0 {
			runID = trace.NewRunID()
			rec.RecordRun(trace.Run{ID: runID, Agent: "coordinator", Status: trace.StatusRunning, StartedAt: base})
		}
		sp := tracetest.BenchSpan(runID, n, base.Add(time.Duration(n)*time.Microsecond))
		rec.RecordSpan(sp)
		open = append(open, sp)
		for len(open) > lag {
			end := open[0]
			open = open[1:]
			end.Status, end.EndedAt = trace.StatusOK, end.StartedAt.Add(500*time.Microsecond)
			rec.RecordSpan(end)
		}
	}
	for _, end := range open {
		end.Status, end.EndedAt = trace.StatusOK, end.StartedAt.Add(time.Millisecond)
		rec.RecordSpan(end)
	}
	// The final flush is part of the cost: the rate is what reached the disk.
	if err := rec.Close(b.Context()); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "spans/s")
	// CPU per span over all goroutines, recorder and writer: a figure that
	// other load on the machine distorts less than it distorts spans/s.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/span")
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	if b.N >= 10_000 {
		b.ReportMetric(float64(fileSize(b, path))/float64(b.N), "bytes/span")
	}
}

func fileSize(b *testing.B, path string) int64 {
	var total int64
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			total += fi.Size()
		}
	}
	return total
}

// BenchmarkStore is the shared store benchmarks (ingest, a 10k-span read,
// a runs page of 100k), run alike on every store.
func BenchmarkStore(b *testing.B) {
	tracetest.RunBenchmarks(b, func(b *testing.B) trace.Store { s, _ := openBench(b); return s })
}

// cpuTime is the CPU time this process has used so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSkeleton100k reads a run of 100,000 spans narrowly, as the run
// page lays a big run out (compare Spans, which reads everything).
func BenchmarkSkeleton100k(b *testing.B) {
	s, _ := openBench(b)
	defer s.Close()
	base := time.Now()
	spans := make([]trace.Span, 100_000)
	for i := range spans {
		spans[i] = tracetest.BenchSpan("big", i, base.Add(time.Duration(i)*time.Millisecond))
		spans[i].Status, spans[i].EndedAt = trace.StatusOK, spans[i].StartedAt.Add(time.Millisecond)
	}
	if err := s.Apply(b.Context(), []trace.Run{{ID: "big", StartedAt: base}}, spans); err != nil {
		b.Fatal(err)
	}
	cpu := cpuTime()
	for b.Loop() {
		got, _, err := s.Skeleton(b.Context(), "big")
		if err != nil || len(got) != len(spans) {
			b.Fatalf("Skeleton = %d, %v", len(got), err)
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/1e6, "ms/op")
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
}
