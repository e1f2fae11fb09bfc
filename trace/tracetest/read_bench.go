package tracetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// readBenchRun is a run of n ended spans, one in four with a task and a
// result: "board" is in a quarter of them, "report N" in one.
func readBenchRun(n int) (trace.Run, []trace.Span) {
	r, spans := benchRun(n)
	for i := 0; i < n; i += 4 {
		spans[i].Attributes[semconv.AttrTask] = fmt.Sprintf("Summarise report %d for the board", i)
		spans[i].Attributes[semconv.AttrResult] = "Revenue grew 12% on the year; three sources cited."
	}
	return r, spans
}

// benchRead100k measures the run page's reads on one run of 100,000
// spans: the skeleton (Spans beside it, for scale), one span, and finds
// by a common word, a rare pair of words, and a tool and agent. A store
// that indexes lazily pays on the first find of a run; that first text
// find is reported as first-ms of Find/common. The run is built once for
// all of them, and -count repeats the leaves on it, so first-ms is the
// same figure on every line: run the benchmark again for another sample.
func benchRead100k(b *testing.B, open BenchOpenFunc) {
	s := open(b)
	defer s.Close()
	const n = 100_000
	r, spans := readBenchRun(n)
	if err := s.Apply(b.Context(), []trace.Run{r}, spans); err != nil {
		b.Fatal(err)
	}
	perOp := func(b *testing.B) { b.ReportMetric(float64(b.Elapsed())/float64(b.N)/1e6, "ms/op") }
	b.Run("Skeleton", func(b *testing.B) {
		for b.Loop() {
			if got, _, err := s.Skeleton(b.Context(), r.ID); err != nil || len(got) != n {
				b.Fatalf("Skeleton = %d, %v", len(got), err)
			}
		}
		perOp(b)
	})
	b.Run("Spans", func(b *testing.B) {
		for b.Loop() {
			if got, err := s.Spans(b.Context(), r.ID); err != nil || len(got) != n {
				b.Fatalf("Spans = %d, %v", len(got), err)
			}
		}
		perOp(b)
	})
	b.Run("Span", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Span(b.Context(), r.ID, spans[n/2].ID); err != nil {
				b.Fatal(err)
			}
		}
		perOp(b)
	})
	var first time.Duration
	tools := 0
	for i := 1; i < n; i += 2 {
		if benchAgents[i%len(benchAgents)] == "critic" {
			tools++
		}
	}
	for _, c := range []struct {
		name string
		q    trace.SpanQuery
		want int
	}{
		{"common", trace.SpanQuery{Text: "board"}, n / 4},
		{"rare", trace.SpanQuery{Text: "report 40000"}, 1},
		{"tool", trace.SpanQuery{Tool: "filesystem.read_file", Agent: "critic"}, tools},
	} {
		b.Run("Find/"+c.name, func(b *testing.B) {
			find := func() {
				if ids, err := s.FindSpans(b.Context(), r.ID, c.q); err != nil || len(ids) != c.want {
					b.Fatalf("FindSpans(%+v) = %d, %v; want %d", c.q, len(ids), err, c.want)
				}
			}
			if first == 0 {
				start := time.Now()
				find()
				first = time.Since(start)
			}
			for b.Loop() {
				find()
			}
			perOp(b)
			if c.name == "common" {
				b.ReportMetric(float64(first)/1e6, "first-ms")
			}
		})
	}
}
