package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/prometheus"
	"github.com/agentry/agentry/web"
)

// serveMetrics makes serve's metrics: those trace/prometheus derives from
// the span stream and the store's writes, and gauges read at scrape time
// from the approvals store and the registry.
func serveMetrics(reg *registry.Registry, approvals approval.Store, log *slog.Logger) *prometheus.Metrics {
	m := prometheus.New()
	m.GaugeFunc("agentry_approvals_pending", "Tool calls and delegations waiting for a person's answer.", func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		n, err := approvals.PendingApprovals(ctx)
		if err != nil {
			log.Warn("metrics: count pending approvals", "err", err)
			return -1
		}
		return float64(n)
	})
	m.CounterFunc("agentry_registry_reloads_total", "Changes of the agents folder the registry took in (its version).",
		func() float64 { return float64(reg.Snapshot().Version()) })
	m.GaugeFunc("agentry_registry_errors", "Problems of severity error in the agents folder now (files that do not load).", func() float64 {
		n := 0
		for _, p := range reg.Snapshot().Problems() {
			if p.Severity == registry.SeverityError {
				n++
			}
		}
		return float64(n)
	})
	return m
}

// readiness is what serve's /readyz checks: the trace store answers, the
// agents folder is loaded and still there, Temporal answers (engine:
// temporal), and the server is not shutting down.
type readiness struct {
	checks   []web.Check
	draining atomic.Bool
}

var errDraining = errors.New("shutting down: finishing the runs in flight, taking no new ones")

func newReadiness(store trace.Store, reg *registry.Registry, agentsDir string) *readiness {
	r := &readiness{}
	r.add("server", func(context.Context) error {
		if r.draining.Load() {
			return errDraining
		}
		return nil
	})
	r.add("store", store.Ping)
	r.add("registry", func(context.Context) error {
		if reg.Snapshot() == nil {
			return errors.New("the agents folder is not loaded yet")
		}
		if info, err := os.Stat(agentsDir); err != nil || !info.IsDir() {
			return fmt.Errorf("the agents folder %s is gone", agentsDir)
		}
		return nil
	})
	return r
}

func (r *readiness) add(name string, run func(context.Context) error) {
	r.checks = append(r.checks, web.Check{Name: name, Run: run})
}

// serveMetricsApart serves the metrics alone on addr (--metrics-addr),
// without the UI's token: an address of its own is how an operator keeps
// the scraper off the UI. It returns a function that stops it.
func serveMetricsApart(addr string, m *prometheus.Metrics, log *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	go func() { _ = hs.Serve(ln) }()
	log.Info("metrics listening", "addr", ln.Addr().String())
	return func() { _ = hs.Close() }, nil
}
