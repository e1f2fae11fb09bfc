package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/otlp"
)

// otelCloseWait bounds how long a command waits at its end for the last
// spans to reach the collector.
const otelCloseWait = 5 * time.Second

// otelConfig resolves the `otel:` section against the environment.
func (s *session) otelConfig(cfg config.Config, log *slog.Logger) (otlp.Config, error) {
	c, err := otlp.Resolve(otlp.Config{
		Endpoint: cfg.Otel.Endpoint, Protocol: cfg.Otel.Protocol, Headers: cfg.Otel.Headers,
		ServiceName: cfg.Otel.ServiceName, CaptureContent: cfg.Otel.CaptureContent,
	}, s.getenv)
	c.Logger = log
	return c, err
}

// withOtel adds live OTLP export to sink when it is configured, and, with
// join, joins the caller's trace when TRACEPARENT is set: the root span keeps the
// traceparent (so `traces export --otlp` sends it to the same trace) and
// model calls under the returned context carry it. done sends the last
// spans; export failures are only ever a warning, never the command's.
func (s *session) withOtel(ctx context.Context, cfg config.Config, sink trace.Sink, log *slog.Logger, join bool) (_ context.Context, _ trace.Sink, done func(), err error) {
	oc, err := s.otelConfig(cfg, log)
	if err != nil {
		return ctx, sink, func() {}, err
	}
	if tp := s.getenv(otlp.EnvTraceParent); join && tp != "" {
		if _, err := otlp.ParseTraceParent(tp); err != nil {
			log.Warn("agentry: "+otlp.EnvTraceParent+" ignored", "err", err)
		} else {
			oc.Parent = tp
			sink = otlp.WithParent(sink, tp)
			ctx = model.WithCallerTrace(ctx, tp)
		}
	}
	if !oc.Enabled() {
		return ctx, sink, func() {}, nil
	}
	exp, err := otlp.New(ctx, oc)
	if err != nil {
		return ctx, sink, func() {}, err
	}
	return ctx, trace.Tee(sink, exp), func() {
		c, cancel := context.WithTimeout(context.Background(), otelCloseWait)
		defer cancel()
		_ = exp.Close(c) // dropped spans are logged once by Close
	}, nil
}
