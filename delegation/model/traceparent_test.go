package model

import (
	"context"
	"testing"
)

func TestTraceParentNamesTheCallsSpanInTheRightTrace(t *testing.T) {
	const run, span = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	ctx := context.Background()
	if got := TraceParent(ctx); got != "" {
		t.Errorf("no span: %q, want none", got)
	}
	if got := TraceParent(WithSpan(ctx, run, span)); got != "00-"+run+"-"+span+"-01" {
		t.Errorf("run's own trace: %q", got)
	}
	caller := WithCallerTrace(ctx, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00")
	if got := TraceParent(WithSpan(caller, run, span)); got != "00-0af7651916cd43dd8448eb211c80319c-"+span+"-00" {
		t.Errorf("under a caller's trace: %q", got)
	}
	if got := TraceParent(WithSpan(WithCallerTrace(ctx, "garbage"), run, span)); got != "00-"+run+"-"+span+"-01" {
		t.Errorf("an invalid caller trace must be ignored: %q", got)
	}
	if got := TraceParent(WithSpan(ctx, "imported-run", span)); got != "" {
		t.Errorf("non-W3C ids send no header: %q", got)
	}
}
