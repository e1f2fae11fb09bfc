package prometheus_test

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/prometheus"
	"github.com/agentry/agentry/trace/semconv"
)

// scrape returns the metrics as Prometheus reads them.
func scrape(t *testing.T, m *prometheus.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Result().Body)
	return string(body)
}

func wantLines(t *testing.T, text string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(text, "\n"+l+"\n") {
			t.Errorf("no line %q in the scrape", l)
		}
	}
}

func TestARunIsCountedOnceFromItsSpanStream(t *testing.T) {
	m := prometheus.New()
	sink := m.Sink()
	t0 := time.Unix(1000, 0)
	run := trace.Run{ID: "r1", Agent: "lead", Status: trace.StatusRunning, StartedAt: t0}
	sink.RecordRun(run)
	chat := trace.Span{ID: "c1", RunID: "r1", Kind: trace.KindChat, Name: "chat demo", Status: trace.StatusRunning,
		StartedAt: t0, Attributes: map[string]any{semconv.AttrModel: "demo"}}
	sink.RecordSpan(chat)
	chat.Status, chat.EndedAt, chat.InputTokens, chat.OutputTokens = trace.StatusOK, t0.Add(time.Second), 120, 30
	chat.Attributes = map[string]any{semconv.AttrModel: "demo", semconv.AttrCostUSD: 0.25}
	sink.RecordSpan(chat)
	sink.RecordSpan(chat) // an end recorded twice is counted once

	queued := trace.Event{Name: semconv.EventQueued, Attributes: map[string]any{semconv.EventAttrCap: semconv.CapRun}}
	del := trace.Span{ID: "d1", RunID: "r1", Kind: trace.KindExecuteTool, Name: "execute_tool delegate", Status: trace.StatusRunning,
		StartedAt: t0, Attributes: map[string]any{semconv.AttrTargetAgent: "helper"}, Events: []trace.Event{queued}}
	sink.RecordSpan(del)
	sink.RecordSpan(del)
	wantLines(t, scrape(t, m), "agentry_delegation_queue_depth 1", "agentry_runs_running 1")
	del.Events = append(del.Events, trace.Event{Name: semconv.EventAdmitted, Attributes: map[string]any{semconv.EventAttrCap: semconv.CapRun}})
	sink.RecordSpan(del)
	wantLines(t, scrape(t, m), "agentry_delegation_queue_depth 0")
	del.Status, del.EndedAt = trace.StatusOK, t0.Add(2*time.Second)
	del.Attributes = map[string]any{semconv.AttrTargetAgent: "helper", semconv.AttrDelegationStatus: "limit"}
	sink.RecordSpan(del)

	tool := trace.Span{ID: "t1", RunID: "r1", Kind: trace.KindExecuteTool, Name: "execute_tool web.fetch", Status: trace.StatusError,
		StartedAt: t0, EndedAt: t0.Add(300 * time.Millisecond)} // recorded only at its end
	sink.RecordSpan(tool)

	run.Status, run.EndedAt = trace.StatusOK, t0.Add(3*time.Second)
	sink.RecordRun(run)
	sink.RecordRun(run)
	wantLines(t, scrape(t, m),
		"agentry_runs_started_total 1",
		`agentry_runs_ended_total{status="ok"} 1`,
		"agentry_runs_running 0",
		`agentry_model_calls_total{model="demo",status="ok"} 1`,
		`agentry_model_tokens_total{direction="input",model="demo"} 120`,
		`agentry_model_tokens_total{direction="output",model="demo"} 30`,
		`agentry_model_cost_usd_total{model="demo"} 0.25`,
		`agentry_delegations_total{status="limit"} 1`,
		`agentry_tool_call_duration_seconds_count{status="error"} 1`,
		`agentry_tool_call_duration_seconds_bucket{status="error",le="0.5"} 1`,
		`agentry_tool_call_duration_seconds_bucket{status="error",le="0.1"} 0`,
		"agentry_delegation_queue_depth 0",
	)
}

func TestLabelsStayBounded(t *testing.T) {
	m := prometheus.New()
	sink := m.Sink()
	for i := range prometheus.MaxModels + 10 {
		id := string(rune('a'+i%26)) + strings.Repeat("x", i)
		sink.RecordSpan(trace.Span{ID: id, RunID: "r", Kind: trace.KindChat, Name: "chat m-" + id, Status: "weird"})
	}
	text := scrape(t, m)
	if n := strings.Count(text, "agentry_model_calls_total{"); n != prometheus.MaxModels+1 {
		t.Errorf("%d model series, want %d and the rest as other", n, prometheus.MaxModels+1)
	}
	wantLines(t, text, `agentry_model_calls_total{model="other",status="other"} 10`)
}

type failingStore struct{ err error }

func (f failingStore) Apply(context.Context, []trace.Run, []trace.Span) error { return f.err }

func TestStoreWritesAreTimedAndTheirFailuresCounted(t *testing.T) {
	m := prometheus.New()
	ok, bad := m.Applier(failingStore{}), m.Applier(failingStore{errors.New("disk full")})
	_ = ok.Apply(context.Background(), nil, nil)
	if err := bad.Apply(context.Background(), nil, nil); err == nil {
		t.Fatal("the wrapper swallowed the store's error")
	}
	wantLines(t, scrape(t, m), "agentry_store_write_duration_seconds_count 2", "agentry_store_write_errors_total 1")
}
