package collectortest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/otlp"
	"github.com/agentry/agentry/trace/semconv"
)

// TestManySpansFromManyGoroutinesArriveEachOnce records more spans than a
// few batches hold, from 8 goroutines at once, so the exporter grows its
// queue, swaps full batches while spans keep coming and copies out the
// small ones; the collector must get every span exactly once, intact.
func TestManySpansFromManyGoroutinesArriveEachOnce(t *testing.T) {
	c := startCollector(t)
	const goroutines, each = 8, 160
	for _, tc := range []struct{ protocol, endpoint string }{
		{otlp.ProtocolHTTP, c.httpURL},
		{otlp.ProtocolGRPC, c.grpc},
	} {
		t.Run(tc.protocol, func(t *testing.T) {
			c.sink.Reset()
			e, err := otlp.New(context.Background(), otlp.Config{Endpoint: tc.endpoint, Protocol: tc.protocol, BatchSize: 100,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				t.Fatal(err)
			}
			t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					for i := range each {
						sp := trace.Span{ID: fmt.Sprintf("%08x%08x", g+1, i+1), RunID: runID, ParentID: "00000000000000a1",
							Kind: trace.KindChat, Name: "chat x", Agent: fmt.Sprint("agent-", g), Status: trace.StatusRunning, StartedAt: t0,
							Attributes: map[string]any{semconv.AttrModel: "openai:gpt-4.1-mini", semconv.AttrRetryAttempt: i % 3}}
						e.RecordSpan(sp) // started: not sent
						sp.Status, sp.EndedAt, sp.InputTokens = trace.StatusOK, t0.Add(time.Duration(i)*time.Millisecond), int64(i)
						e.RecordSpan(sp)
					}
				})
			}
			wg.Wait()
			if err := e.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			spans := c.spans(t, goroutines*each)
			if len(spans) != goroutines*each || e.Sent() != goroutines*each || e.Dropped() != 0 {
				t.Fatalf("collector got %d spans, exporter sent %d and dropped %d; want %d each once", len(spans), e.Sent(), e.Dropped(), goroutines*each)
			}
			seen := map[string]bool{}
			for _, s := range spans {
				var g, i int
				if _, err := fmt.Sscanf(s.SpanID, "%08x%08x", &g, &i); err != nil || seen[s.SpanID] {
					t.Fatalf("span %s: unknown or twice", s.SpanID)
				}
				seen[s.SpanID] = true
				if s.TraceID != runID || s.Name != "chat gpt-4.1-mini" || s.Attrs["gen_ai.agent.name"] != nil ||
					s.Attrs["gen_ai.usage.input_tokens"] != int64(i-1) || s.End-s.Start != int64(time.Duration(i-1)*time.Millisecond) ||
					(i-1)%3 != 0 && s.Attrs["agentry.retry_attempt"] != int64((i-1)%3) {
					t.Fatalf("span %s arrived as %+v", s.SpanID, s)
				}
			}
		})
	}
}
