package prometheus

import (
	"context"
	"net/http"
	"sync"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/agentry/agentry/trace"
)

// MaxModels bounds the model label: models past this many distinct names
// are counted as "other", so a file naming many models cannot grow the
// series without end.
const MaxModels = 64

// Metrics holds agentry's metrics on a registry of its own (never the
// global one, so two servers in one test process do not collide). Its
// methods are safe for concurrent use.
type Metrics struct {
	reg *prom.Registry

	runsStarted   prom.Counter
	runsEnded     *prom.CounterVec
	runsRunning   prom.Gauge
	delegations   *prom.CounterVec
	modelCalls    *prom.CounterVec
	modelTokens   *prom.CounterVec
	modelCost     *prom.CounterVec
	toolDuration  *prom.HistogramVec
	queueDepth    prom.Gauge
	writeDuration prom.Histogram
	writeErrors   prom.Counter

	stream stream
}

// New makes the metrics and registers them, with the Go runtime's and the
// process's collectors.
func New() *Metrics {
	m := &Metrics{reg: prom.NewRegistry()}
	m.runsStarted = m.counter("agentry_runs_started_total", "Runs started by this process.")
	m.runsEnded = m.counterVec("agentry_runs_ended_total", "Runs that ended, by final status.", "status")
	m.runsRunning = m.gauge("agentry_runs_running", "Runs started by this process that have not ended.")
	m.delegations = m.counterVec("agentry_delegations_total", "Delegations that ended, by delegation status.", "status")
	m.modelCalls = m.counterVec("agentry_model_calls_total", "Model calls (chat spans) that ended, by model and status.", "model", "status")
	m.modelTokens = m.counterVec("agentry_model_tokens_total", "Tokens of model calls, by model and direction (input, output).", "model", "direction")
	m.modelCost = m.counterVec("agentry_model_cost_usd_total", "Cost of priced model calls in US dollars, by model.", "model")
	m.toolDuration = prom.NewHistogramVec(prom.HistogramOpts{
		Name: "agentry_tool_call_duration_seconds", Help: "Duration of tool calls other than delegations, by status.",
		Buckets: []float64{.001, .005, .01, .05, .1, .5, 1, 5, 10, 30, 60, 300},
	}, []string{"status"})
	m.queueDepth = m.gauge("agentry_delegation_queue_depth", "Delegations waiting for a slot under the run-wide concurrency cap.")
	m.writeDuration = prom.NewHistogram(prom.HistogramOpts{
		Name: "agentry_store_write_duration_seconds", Help: "Duration of one batch write to the trace store.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 5},
	})
	m.writeErrors = m.counter("agentry_store_write_errors_total", "Batch writes to the trace store that failed.")
	m.reg.MustRegister(m.toolDuration, m.writeDuration,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.stream = stream{m: m, runs: map[string]bool{}, spans: map[spanKey]*openSpan{}, models: map[string]bool{}}
	return m
}

func (m *Metrics) counter(name, help string) prom.Counter {
	c := prom.NewCounter(prom.CounterOpts{Name: name, Help: help})
	m.reg.MustRegister(c)
	return c
}

func (m *Metrics) counterVec(name, help string, labels ...string) *prom.CounterVec {
	c := prom.NewCounterVec(prom.CounterOpts{Name: name, Help: help}, labels)
	m.reg.MustRegister(c)
	return c
}

func (m *Metrics) gauge(name, help string) prom.Gauge {
	g := prom.NewGauge(prom.GaugeOpts{Name: name, Help: help})
	m.reg.MustRegister(g)
	return g
}

// GaugeFunc registers a gauge whose value f reads at scrape time (f must
// be cheap and safe for concurrent use).
func (m *Metrics) GaugeFunc(name, help string, f func() float64) {
	m.reg.MustRegister(prom.NewGaugeFunc(prom.GaugeOpts{Name: name, Help: help}, f))
}

// CounterFunc registers a counter whose value f reads at scrape time.
func (m *Metrics) CounterFunc(name, help string, f func() float64) {
	m.reg.MustRegister(prom.NewCounterFunc(prom.CounterOpts{Name: name, Help: help}, f))
}

// Handler serves the metrics in Prometheus' text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Sink returns the trace.Sink that derives the run, span and queue
// metrics; tee it beside the recorder.
func (m *Metrics) Sink() trace.Sink { return &m.stream }

// Applier wraps the store a trace.Recorder writes to, timing each write
// and counting failures.
func (m *Metrics) Applier(store trace.Applier) trace.Applier { return timedApplier{store, m} }

type timedApplier struct {
	store trace.Applier
	m     *Metrics
}

func (a timedApplier) Apply(ctx context.Context, runs []trace.Run, spans []trace.Span) error {
	start := time.Now()
	err := a.store.Apply(ctx, runs, spans)
	a.m.writeDuration.Observe(time.Since(start).Seconds())
	if err != nil {
		a.m.writeErrors.Inc()
	}
	return err
}

// status is s as a label value: a known status, or "other".
func status(s string) string {
	if trace.Status(s).IsKnown() {
		return s
	}
	return "other"
}

// stream is the Sink: it remembers the runs and spans it saw open, so each
// is counted once when it ends however often it is recorded.
type stream struct {
	m *Metrics

	mu     sync.Mutex
	runs   map[string]bool // run id → running, for runs seen open
	spans  map[spanKey]*openSpan
	ended  recent // runs and spans counted lately, so a repeat of an end is not counted again
	models map[string]bool
}

type spanKey struct{ run, span string }

// openSpan is what the stream keeps of a span until it ends.
type openSpan struct{ queued bool } // waiting for the run-wide cap

var _ trace.Sink = (*stream)(nil)
