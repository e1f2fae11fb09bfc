package postgres_test

import (
	"testing"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/postgres/pgtest"
	"github.com/agentry/agentry/trace/tracetest"
)

// BenchmarkStore is the shared store benchmarks (ingest, a 10k-span read,
// a runs page of 100k), run alike on every store.
func BenchmarkStore(b *testing.B) {
	tracetest.RunBenchmarks(b, func(b *testing.B) trace.Store { return open(b, pgtest.URL(b)) })
}
