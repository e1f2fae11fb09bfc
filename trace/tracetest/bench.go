package tracetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// BenchOpenFunc returns a fresh, empty store for one benchmark; the
// benchmark closes it.
type BenchOpenFunc func(b *testing.B) trace.Store

// RunBenchmarks measures the same three things on any store, so stores can
// be compared in one run (docs/postgres.md quotes them):
//
//   - Ingest: one Apply of a batch of 10,000 new spans, as the Recorder
//     writes a busy moment (spans/s).
//   - Spans10k: reading a run of 10,000 spans in start order (ms/op).
//   - RunsPage: the newest 50 of 100,000 runs, unfiltered and with each
//     filter (ms/op).
//   - Read100k: the run page's reads on one run of 100,000 spans
//     (read_bench.go).
//   - VersionUses: the runs of each version of an agent and of a
//     workflow, over 2,000 runs (versions_bench.go).
func RunBenchmarks(b *testing.B, open BenchOpenFunc) {
	b.Run("Ingest", func(b *testing.B) { benchIngest(b, open) })
	b.Run("Spans10k", func(b *testing.B) { benchSpans10k(b, open) })
	b.Run("RunsPage", func(b *testing.B) { benchRunsPage(b, open) })
	b.Run("Read100k", func(b *testing.B) { benchRead100k(b, open) })
	b.Run("VersionUses", func(b *testing.B) { benchVersionUses(b, open) })
}

var benchAgents = []string{"coordinator", "analyst", "researcher", "writer", "critic", "citer", "coder"}

// BenchSpan is a chat or tool span with attributes of a realistic size.
func BenchSpan(runID string, i int, start time.Time) trace.Span {
	sp := trace.Span{
		ID: trace.NewSpanID(), RunID: runID, Kind: trace.KindChat, Name: "chat demo",
		Agent: benchAgents[i%len(benchAgents)], Depth: i % 3, Status: trace.StatusRunning,
		StartedAt: start, InputTokens: 120, OutputTokens: 30,
		Attributes: map[string]any{semconv.AttrModel: "openai:gpt-4.1-mini", semconv.AttrRetryAttempt: 0},
	}
	if i%2 == 1 {
		sp.Kind, sp.Name = trace.KindExecuteTool, "execute_tool filesystem.read_file"
		sp.Attributes = map[string]any{semconv.AttrToolName: "filesystem.read_file",
			semconv.AttrToolArguments: `{"path":"notes/q4.md"}`, semconv.AttrToolResult: "Q4 revenue grew 12% on the year."}
	}
	return sp
}

// benchRun is a run of n ended spans.
func benchRun(n int) (trace.Run, []trace.Span) {
	base := time.Now()
	r := trace.Run{ID: trace.NewRunID(), Agent: "coordinator", Status: trace.StatusRunning, StartedAt: base}
	spans := make([]trace.Span, n)
	for i := range spans {
		spans[i] = BenchSpan(r.ID, i, base.Add(time.Duration(i)*time.Millisecond))
		spans[i].Status, spans[i].EndedAt = trace.StatusOK, spans[i].StartedAt.Add(time.Millisecond)
	}
	return r, spans
}

func benchIngest(b *testing.B, open BenchOpenFunc) {
	s := open(b)
	defer s.Close()
	const batch = 10_000
	for b.Loop() {
		b.StopTimer()
		r, spans := benchRun(batch)
		b.StartTimer()
		if err := s.Apply(b.Context(), []trace.Run{r}, spans); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "spans/s")
}

func benchSpans10k(b *testing.B, open BenchOpenFunc) {
	s := open(b)
	defer s.Close()
	r, spans := benchRun(10_000)
	if err := s.Apply(b.Context(), []trace.Run{r}, spans); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		got, err := s.Spans(b.Context(), r.ID)
		if err != nil || len(got) != len(spans) {
			b.Fatalf("Spans = %d, %v", len(got), err)
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/1e6, "ms/op")
}

func benchRunsPage(b *testing.B, open BenchOpenFunc) {
	s := open(b)
	defer s.Close()
	base := time.Now().Add(-100_000 * time.Second)
	runs := make([]trace.Run, 100_000)
	for i := range runs {
		runs[i] = trace.Run{ID: trace.NewRunID(), Agent: fmt.Sprintf("agent-%d", i%10), Task: fmt.Sprintf("Summarise report %d for the board", i),
			Status: trace.StatusOK, StartedAt: base.Add(time.Duration(i) * time.Second), EndedAt: base.Add(time.Duration(i)*time.Second + time.Millisecond),
			Result: "Revenue grew 12% on the year; three sources cited."}
	}
	if err := s.Apply(b.Context(), runs, nil); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		f    trace.RunFilter
	}{
		{"newest", trace.RunFilter{Limit: 50}},
		{"agent", trace.RunFilter{Limit: 50, Agent: "agent-3"}},
		{"status", trace.RunFilter{Limit: 50, Status: trace.StatusOK}},
		{"text", trace.RunFilter{Limit: 50, Text: "report 4"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				page, err := s.Runs(b.Context(), c.f)
				if err != nil || len(page.Runs) != 50 {
					b.Fatalf("Runs = %d, %v", len(page.Runs), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed())/float64(b.N)/1e6, "ms/op")
		})
	}
}
