package model

import "context"

// Provider requests carry a W3C traceparent header naming the chat span
// they are made for, so a provider's or a proxy's own tracing can join the
// run's trace. The runtime marks each model call's context with WithSpan;
// adapters send TraceParent(ctx). It is plain text, not an OpenTelemetry
// API, so the domain stays free of it.

type traceKey struct{}

type traceCtx struct {
	traceID, spanID, flags string
	caller                 bool // traceID came from the caller (WithCallerTrace)
}

// WithCallerTrace returns ctx under which every model call belongs to the
// trace of traceparent, the W3C header value a caller passed (TRACEPARENT),
// instead of its run's own. An invalid traceparent leaves ctx as it is.
func WithCallerTrace(ctx context.Context, traceparent string) context.Context {
	if len(traceparent) != 55 || traceparent[2] != '-' || traceparent[35] != '-' || traceparent[52] != '-' ||
		!isHex(traceparent[:2]) || traceparent[:2] == "ff" || !isHex(traceparent[3:35]) ||
		!isHex(traceparent[36:52]) || !isHex(traceparent[53:]) {
		return ctx
	}
	return context.WithValue(ctx, traceKey{}, traceCtx{traceID: traceparent[3:35], flags: traceparent[53:], caller: true})
}

// WithSpan returns ctx for a model call made within span spanID of run
// runID: its trace is the caller's (WithCallerTrace) or the run's, whose ID
// is a trace ID (trace.NewRunID).
func WithSpan(ctx context.Context, runID, spanID string) context.Context {
	t, _ := ctx.Value(traceKey{}).(traceCtx)
	if !t.caller {
		t = traceCtx{traceID: runID, flags: "01"}
	}
	t.spanID = spanID
	return context.WithValue(ctx, traceKey{}, t)
}

// TraceParent is the traceparent header value for a model call under ctx,
// or "" when ctx names no span or its IDs are not W3C-shaped (an imported
// run's).
func TraceParent(ctx context.Context) string {
	t, _ := ctx.Value(traceKey{}).(traceCtx)
	if len(t.traceID) != 32 || len(t.spanID) != 16 || !isHex(t.traceID) || !isHex(t.spanID) {
		return ""
	}
	return "00-" + t.traceID + "-" + t.spanID + "-" + t.flags
}

// isHex reports whether s is lowercase hex and not all zeros, the W3C rule
// for IDs.
func isHex(s string) bool {
	zero := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
		zero = zero && c == '0'
	}
	return !zero || len(s) == 2
}
