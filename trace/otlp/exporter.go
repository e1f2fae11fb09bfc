package otlp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	otelsemconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/internal/writer"
)

// ScopeName is the instrumentation scope of every exported span.
const ScopeName = "github.com/agentry/agentry"

// ErrDropped is returned by Close when spans never reached the collector.
var ErrDropped = errors.New("otlp: spans dropped")

// Exporter is a trace.Sink that sends each finished span to an OTLP
// collector once, from a background goroutine.
//
// RecordSpan encodes the span as OTLP onto a queue of bytes; sending
// happens in batches on the Exporter's own goroutine, so an agent never
// waits on the network. Spans still running are ignored: the last record
// of a span, the one with its end, is the one sent. A full queue or a
// failed request drops spans without retrying; they are counted, and Close
// reports them in one warning.
type Exporter struct {
	cfg    Config
	client otlptrace.Client
	res    *resourcepb.Resource
	scope  *commonpb.InstrumentationScope

	mu      sync.Mutex
	enc     encoder
	queue   batch
	spare   batch // the previous batch's arrays, reused
	scratch batch // owned by the sending goroutine: a few spans copied out of queue
	closed  bool
	sent    int64
	dropped atomic.Int64
	err     error // the last failed request's error

	// down is set while the collector is in its backoff: RecordSpan then
	// drops spans without encoding them. probe is set while the
	// collector's state is unknown (at the start and after a backoff):
	// the next span is sent at once, so that when the collector is down
	// only that span was encoded for nothing.
	down, probe atomic.Bool

	// Owned by the sending goroutine.
	retryAt time.Time     // no request before then: the collector failed
	backoff time.Duration // the next wait after a failure

	writer *writer.Loop
}

var _ trace.Sink = (*Exporter)(nil)

// batch is encoded spans waiting to be sent: their OTLP bytes, one
// ScopeSpans.spans field each, and where each ends, so that a request can
// be cut after BatchSize spans.
type batch struct {
	buf  []byte
	ends []int
}

// send copies up to fewSpans out of the queue instead of taking its
// arrays, so an Exporter whose collector is down, or whose runs make a
// span now and then, never holds more than a few spans' worth. The queue's
// arrays grow by append to what the spans need, not BatchSize times a
// guess: the queue and the spare are held for the Exporter's life, and
// in a short `agentry run`, whose heap is a few MB, memory held costs
// garbage collections as memory allocated does.
const fewSpans = 64

// spanRoom is the free space that makes the queue double before a span is
// encoded into it. Left to append, a []byte this large grows by a quarter
// at a time: some fifteen copies on the way to a run's 300 KB.
const spanRoom = 1 << 10

// maxRequestBytes cuts a request before BatchSize spans when their bytes
// would pass it: half of the 4 MiB a gRPC server, the Collector's
// included, receives by default. With CaptureContent a span may carry a
// whole tool result.
const maxRequestBytes = 2 << 20

// maxQueueBytes bounds the encoded spans waiting, next to MaxQueue: with
// CaptureContent a span may carry a whole tool result.
const maxQueueBytes = 64 << 20

// New starts an Exporter for cfg, which must be Enabled. Close it to send
// what is queued and stop its goroutine. An invalid cfg.Parent is reported
// in the log and ignored, as W3C trace context asks.
func New(ctx context.Context, cfg Config) (*Exporter, error) {
	cfg = cfg.withDefaults()
	u, err := cfg.url()
	if err != nil {
		return nil, err
	}
	var client otlptrace.Client
	if cfg.Protocol == ProtocolGRPC {
		client = otlptracegrpc.NewClient(otlptracegrpc.WithEndpointURL(u.String()), otlptracegrpc.WithHeaders(cfg.Headers),
			otlptracegrpc.WithTimeout(cfg.Timeout), otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: false}),
			otlptracegrpc.WithDialOption(grpcCodecOption()))
	} else {
		client = otlptracehttp.NewClient(otlptracehttp.WithEndpointURL(u.String()), otlptracehttp.WithHeaders(cfg.Headers),
			otlptracehttp.WithTimeout(cfg.Timeout), otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
	}
	if err := client.Start(ctx); err != nil {
		return nil, fmt.Errorf("otlp: start %s client: %w", cfg.Protocol, err)
	}
	res, err := newResource(cfg.ServiceName)
	if err != nil {
		return nil, err
	}
	e := &Exporter{
		cfg: cfg, client: client, res: res,
		enc: encoder{capture: cfg.CaptureContent}, backoff: minBackoff,
		scope: &commonpb.InstrumentationScope{Name: ScopeName},
	}
	e.probe.Store(true)
	if cfg.Parent != "" {
		if p, err := ParseTraceParent(cfg.Parent); err != nil {
			cfg.Logger.Warn("otel: "+EnvTraceParent+" ignored", "err", err)
		} else {
			e.enc.parent = &p
		}
	}
	e.writer = writer.Start(writer.Config{
		Interval: cfg.Interval, Tick: e.tick, Write: e.send, FlushWhat: "otlp: flush",
	})
	return e, nil
}

// newResource is the SDK's resource from OTEL_RESOURCE_ATTRIBUTES and
// OTEL_SERVICE_NAME over service.name "agentry", with serviceName, when
// set, winning over both.
func newResource(serviceName string) (*resourcepb.Resource, error) {
	res, err := resource.Merge(resource.NewSchemaless(otelsemconv.ServiceName(DefaultServiceName)), resource.Environment())
	if err == nil && serviceName != "" {
		res, err = resource.Merge(res, resource.NewSchemaless(otelsemconv.ServiceName(serviceName)))
	}
	if err != nil {
		return nil, fmt.Errorf("otlp: resource: %w", err)
	}
	out := &resourcepb.Resource{}
	for it := res.Iter(); it.Next(); {
		kv := it.Attribute()
		v := &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: kv.Value.String()}}
		switch kv.Value.Type() {
		case attribute.INT64:
			v.Value = &commonpb.AnyValue_IntValue{IntValue: kv.Value.AsInt64()}
		case attribute.BOOL:
			v.Value = &commonpb.AnyValue_BoolValue{BoolValue: kv.Value.AsBool()}
		}
		out.Attributes = append(out.Attributes, &commonpb.KeyValue{Key: string(kv.Key), Value: v})
	}
	return out, nil
}

// RecordRun does nothing: a run is its spans.
func (e *Exporter) RecordRun(trace.Run) {}

// RecordSpan encodes a finished span and queues it for sending; it never
// blocks on the network.
//
// Encoding here, on the goroutine that ended the span, costs the same CPU
// as encoding on the Exporter's (about 320 µs for a 200-delegation run's
// 802 spans either way, measured), and the queue then holds bytes, not
// spans whose maps the garbage collector must trace and keep alive.
//
// A run whose root span carries a traceparent (AttrTraceParent: an MCP
// client's _meta, an A2A or API caller's header) joins that trace: the
// root span says so as it starts, before any of the run's spans ends.
func (e *Exporter) RecordSpan(sp trace.Span) {
	if sp.Status == trace.StatusRunning || sp.EndedAt.IsZero() {
		if sp.ParentID == "" {
			e.noteParent(sp)
		}
		return
	}
	if e.down.Load() {
		e.dropped.Add(1)
		return
	}
	e.mu.Lock()
	if e.closed || len(e.queue.ends) >= e.cfg.MaxQueue || len(e.queue.buf) >= maxQueueBytes {
		e.mu.Unlock()
		e.dropped.Add(1)
		return
	}
	if b := e.queue.buf; cap(b)-len(b) < spanRoom {
		e.queue.buf = append(make([]byte, 0, max(2*cap(b), 16*spanRoom)), b...)
	}
	e.queue.buf = e.enc.span(e.queue.buf, &sp)
	e.queue.ends = append(e.queue.ends, len(e.queue.buf))
	if sp.ParentID == "" && e.enc.parents != nil {
		delete(e.enc.parents, sp.RunID) // the root ends last
	}
	full := len(e.queue.ends)%e.cfg.BatchSize == 0
	e.mu.Unlock()
	if full || e.probe.Load() && e.probe.CompareAndSwap(true, false) {
		e.writer.Kick()
	}
}

// Close sends what is queued, stops the Exporter and logs one warning when
// spans were dropped; it returns ErrDropped (with the count and the last
// failure) then. Spans recorded after Close are dropped. ctx bounds the
// wait for the last request.
func (e *Exporter) Close(ctx context.Context) error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	_ = e.writer.Close(ctx) // an ended ctx still stops the client
	_ = e.client.Stop(ctx)
	e.mu.Lock()
	defer e.mu.Unlock()
	dropped := e.dropped.Load()
	if dropped == 0 {
		return nil
	}
	e.cfg.Logger.Warn("otel: spans dropped, not exported", "dropped", dropped, "sent", e.sent, "err", e.err)
	return fmt.Errorf("%w: %d of %d (%w)", ErrDropped, dropped, dropped+e.sent, e.err)
}

// Flush sends what was queued before the call and waits for it; it
// returns the error of a failed request, if any. Spans a backoff drops
// are dropped, not waited for.
func (e *Exporter) Flush(ctx context.Context) error {
	err := e.writer.Flush(ctx)
	if err == writer.ErrStopped {
		return nil
	}
	return err
}

// Err is the last failed request's error, nil when every request went through.
func (e *Exporter) Err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// Dropped counts the spans that never reached the collector.
func (e *Exporter) Dropped() int64 { return e.dropped.Load() }

// Sent counts the spans the collector accepted.
func (e *Exporter) Sent() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sent
}

// tick ends a backoff that is over, then sends what is queued.
func (e *Exporter) tick() {
	if e.down.Load() && !time.Now().Before(e.retryAt) {
		e.probe.Store(true) // the backoff is over: try the next span
		e.down.Store(false)
	}
	_ = e.send()
}

// After a failed request no request is made for a backoff, doubling from
// minBackoff to maxBackoff: spans for a collector that is down are dropped
// anyway, and dropping them unencoded (Exporter.down) makes a down
// collector cost a run an atomic load per span.
const (
	minBackoff = time.Second
	maxBackoff = 30 * time.Second
)

// request returns how many spans from the first (whose bytes start at
// from) the next request takes, at most max and maxRequestBytes but at
// least one, and where their bytes end.
func (b *batch) request(first, from, max int) (n, to int) {
	n = min(len(b.ends)-first, max)
	for n > 1 && b.ends[first+n-1]-from > maxRequestBytes {
		n--
	}
	return n, b.ends[first+n-1]
}

// send takes the queue and exports it in requests of at most BatchSize
// spans. A failed request's spans are dropped and counted.
func (e *Exporter) send() error {
	e.mu.Lock()
	q := e.queue
	if len(q.ends) <= fewSpans {
		e.scratch.buf = append(e.scratch.buf[:0], q.buf...)
		e.scratch.ends = append(e.scratch.ends[:0], q.ends...)
		e.queue.buf, e.queue.ends = q.buf[:0], q.ends[:0]
		q = e.scratch
	} else {
		e.queue, e.spare = e.spare, batch{}
	}
	e.mu.Unlock()
	var last error
	for first, from := 0, 0; first < len(q.ends); {
		if time.Now().Before(e.retryAt) {
			e.dropped.Add(int64(len(q.ends) - first))
			break
		}
		n, to := q.request(first, from, e.cfg.BatchSize)
		if err := e.upload(q.buf[from:to], n); err != nil {
			last = err
			e.retryAt = time.Now().Add(e.backoff)
			e.backoff = min(2*e.backoff, maxBackoff)
			e.down.Store(true)
		} else {
			e.backoff = minBackoff
		}
		first, from = first+n, to
	}
	if len(q.ends) > fewSpans {
		e.mu.Lock()
		e.spare = batch{q.buf[:0], q.ends[:0]}
		e.mu.Unlock()
	}
	return last
}

// upload sends n encoded spans, counting them as sent or dropped.
func (e *Exporter) upload(spans []byte, n int) error {
	// The spans travel as ScopeSpans' unknown fields: protobuf-go writes
	// them out as they are, the same bytes as the spans field would be.
	ss := &tracepb.ScopeSpans{Scope: e.scope}
	ss.ProtoReflect().SetUnknown(spans)
	req := []*tracepb.ResourceSpans{{Resource: e.res, ScopeSpans: []*tracepb.ScopeSpans{ss}}}
	ctx, cancel := context.WithTimeout(context.Background(), e.cfg.Timeout)
	defer cancel()
	err := e.client.UploadTraces(ctx, req)
	if err != nil {
		e.dropped.Add(int64(n))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err != nil {
		e.err = err
		return err
	}
	e.sent += int64(n)
	return nil
}

// noteParent keeps the traceparent a running root span carries, so every
// span of its run is exported into that trace. A process-wide parent
// (Config.Parent, TRACEPARENT) wins: it is the trace of the whole command.
func (e *Exporter) noteParent(root trace.Span) {
	tp, ok := root.Attributes[AttrTraceParent].(string)
	if !ok || e.enc.parent != nil {
		return
	}
	p, err := ParseTraceParent(tp)
	if err != nil {
		return
	}
	e.mu.Lock()
	if e.enc.parents == nil {
		e.enc.parents = map[string]*Parent{}
	}
	e.enc.parents[root.RunID] = &p
	e.enc.run = "" // the run's trace ID is worked out again
	e.mu.Unlock()
}
