package otlp

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"strings"

	"github.com/agentry/agentry/trace"
)

// AttrTraceParent is the root span's attribute that keeps the traceparent a
// run was started under, so `traces export` later sends the run into the
// same trace as the live export did.
const AttrTraceParent = "traceparent"

// traceID is a run's OpenTelemetry trace ID: its own ID, which agentry makes
// 32 hex characters for this purpose (trace.NewRunID).
func traceID(runID string) [16]byte {
	var id [16]byte
	if len(runID) == 32 && decodeHex(id[:], runID) {
		return id
	}
	sum := sha256.Sum256([]byte("run:" + runID))
	copy(id[:], sum[:])
	return id
}

// spanID is a span's OpenTelemetry span ID: its own ID when that is 16 hex
// characters (trace.NewSpanID), else a hash of it. Imported runs may bring
// other IDs; hashing keeps them stable and their parents consistent.
func spanID(id string) [8]byte {
	var b [8]byte
	if len(id) == 16 && decodeHex(b[:], id) && b != [8]byte{} {
		return b
	}
	sum := sha256.Sum256([]byte("span:" + id))
	copy(b[:], sum[:])
	return b
}

// decodeHex decodes s, exactly twice as long as dst, into dst, as
// hex.Decode would without its conversion of s to bytes.
func decodeHex(dst []byte, s string) bool {
	if len(s) != 2*len(dst) {
		return false
	}
	for i := range dst {
		hi, lo := unhex[s[2*i]], unhex[s[2*i+1]]
		if hi|lo > 0xf {
			return false
		}
		dst[i] = hi<<4 | lo
	}
	return true
}

// unhex is the value of each hex digit, 0xff for other bytes.
var unhex = func() (t [256]byte) {
	for c := range t {
		switch {
		case '0' <= c && c <= '9':
			t[c] = byte(c - '0')
		case 'a' <= c && c <= 'f':
			t[c] = byte(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			t[c] = byte(c - 'A' + 10)
		default:
			t[c] = 0xff
		}
	}
	return t
}()

// Parent is a parsed W3C traceparent.
type Parent struct {
	TraceID [16]byte
	SpanID  [8]byte
	Flags   byte
}

// ParseTraceParent reads a W3C traceparent header value
// ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").
func ParseTraceParent(s string) (Parent, error) {
	var p Parent
	parts := strings.Split(strings.TrimSpace(s), "-")
	if len(parts) < 4 || len(parts[0]) != 2 || parts[0] == "ff" || (parts[0] == "00" && len(parts) != 4) ||
		len(parts[1]) != 32 || len(parts[2]) != 16 || len(parts[3]) != 2 {
		return p, fmt.Errorf("traceparent %q: want 00-<32 hex>-<16 hex>-<2 hex>", s)
	}
	var flags [1]byte
	if !decodeHex(p.TraceID[:], parts[1]) || !decodeHex(p.SpanID[:], parts[2]) || !decodeHex(flags[:], parts[3]) ||
		p.TraceID == [16]byte{} || p.SpanID == [8]byte{} || strings.ToLower(s) != s {
		return Parent{}, fmt.Errorf("traceparent %q: not lowercase hex, or an all-zero id", s)
	}
	p.Flags = flags[0]
	return p, nil
}

// WithParent returns a Sink that passes everything to sink and adds
// traceparent as AttrTraceParent to each root span, so the store keeps which
// trace the run belongs to. The root span's attributes are copied first:
// the Sink contract lets the caller share them.
func WithParent(sink trace.Sink, traceparent string) trace.Sink {
	return parented{sink, traceparent}
}

type parented struct {
	trace.Sink
	tp string
}

func (p parented) RecordSpan(sp trace.Span) {
	if sp.ParentID == "" {
		attrs := make(map[string]any, len(sp.Attributes)+1)
		maps.Copy(attrs, sp.Attributes)
		attrs[AttrTraceParent] = p.tp
		sp.Attributes = attrs
	}
	p.Sink.RecordSpan(sp)
}
