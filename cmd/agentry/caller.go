package main

import (
	"context"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace/otlp"
	"github.com/agentry/agentry/web/core"
)

// callerOf returns the root-span attributes of a run's caller (an agent
// run's or a workflow run's), and ctx under which the run's model calls
// join the caller's trace when traceparent is valid (the root span keeps
// it, as for TRACEPARENT).
func callerOf(ctx context.Context, caller *core.Caller, traceparent string) (context.Context, map[string]any) {
	if caller == nil && traceparent == "" {
		return ctx, nil
	}
	attrs := caller.Attributes()
	if attrs == nil {
		attrs = map[string]any{}
	}
	if _, err := otlp.ParseTraceParent(traceparent); traceparent != "" && err == nil {
		attrs[otlp.AttrTraceParent] = traceparent
		ctx = model.WithCallerTrace(ctx, traceparent)
	}
	return ctx, attrs
}
