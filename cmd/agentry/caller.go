package main

import (
	"context"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace/otlp"
	"github.com/agentry/agentry/web"
)

// callerOf returns the root-span attributes of r's caller, and ctx under
// which the run's model calls join the caller's trace when r carries a
// valid traceparent (which the root span keeps, as for TRACEPARENT).
func callerOf(ctx context.Context, r web.RunRequest) (context.Context, map[string]any) {
	if r.Caller == nil && r.TraceParent == "" {
		return ctx, nil
	}
	attrs := r.Caller.Attributes()
	if attrs == nil {
		attrs = map[string]any{}
	}
	if _, err := otlp.ParseTraceParent(r.TraceParent); r.TraceParent != "" && err == nil {
		attrs[otlp.AttrTraceParent] = r.TraceParent
		ctx = model.WithCallerTrace(ctx, r.TraceParent)
	}
	return ctx, attrs
}
