package otlp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agentry/agentry/trace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// ScopeName is the instrumentation scope of every exported span.
const ScopeName = "github.com/agentry/agentry"

// ErrDropped is returned by Close when spans never reached the collector.
var ErrDropped = errors.New("otlp: spans dropped")

// Exporter is a trace.Sink that sends each finished span to an OTLP
// collector once, from a background goroutine.
//
// RecordSpan only appends the span to a queue; encoding it as OTLP and
// sending happen in batches on the Exporter's own goroutine, so an agent
// never waits on the network. Spans still running are ignored: the last
// record of a span, the one with its end, is the one sent. A full queue or
// a failed request drops spans without retrying; they are counted, and Close
// reports them in one warning.
type Exporter struct {
	cfg    Config
	client otlptrace.Client
	enc    encoder
	buf    []byte // the encoded spans of a request, reused
	res    *resourcepb.Resource
	scope  *commonpb.InstrumentationScope

	mu      sync.Mutex
	queue   []trace.Span
	spare   []trace.Span // the previous batch's array, reused
	closed  bool
	sent    int64
	dropped int64
	err     error // the last failed request's error

	// Owned by the sending goroutine.
	retryAt time.Time     // no request before then: the collector failed
	backoff time.Duration // the next wait after a failure

	kick  chan struct{}
	flush chan chan error
	done  chan struct{}
	exit  chan struct{}
}

var _ trace.Sink = (*Exporter)(nil)

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
			otlptracegrpc.WithTimeout(cfg.Timeout), otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: false}))
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
		kick:  make(chan struct{}, 1),
		flush: make(chan chan error),
		done:  make(chan struct{}),
		exit:  make(chan struct{}),
	}
	// Full-size buffers from the start: growing them while a run goes cost
	// more than the work itself (appends, then the garbage collector's
	// assists charged to the growing goroutine).
	e.queue, e.spare = make([]trace.Span, 0, cfg.BatchSize), make([]trace.Span, 0, cfg.BatchSize)
	e.buf = make([]byte, 0, cfg.BatchSize*512)
	if cfg.Parent != "" {
		if p, err := ParseTraceParent(cfg.Parent); err != nil {
			cfg.Logger.Warn("otel: "+EnvTraceParent+" ignored", "err", err)
		} else {
			e.enc.parent = &p
		}
	}
	go e.loop()
	return e, nil
}

// newResource is the SDK's resource from OTEL_RESOURCE_ATTRIBUTES and
// OTEL_SERVICE_NAME over service.name "agentry", with serviceName, when
// set, winning over both.
func newResource(serviceName string) (*resourcepb.Resource, error) {
	res, err := resource.Merge(resource.NewSchemaless(semconv.ServiceName(DefaultServiceName)), resource.Environment())
	if err == nil && serviceName != "" {
		res, err = resource.Merge(res, resource.NewSchemaless(semconv.ServiceName(serviceName)))
	}
	if err != nil {
		return nil, fmt.Errorf("otlp: resource: %w", err)
	}
	out := &resourcepb.Resource{}
	for it := res.Iter(); it.Next(); {
		kv := it.Attribute()
		v := &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: kv.Value.Emit()}}
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

// RecordSpan queues a finished span for sending; it never blocks.
func (e *Exporter) RecordSpan(sp trace.Span) {
	if sp.Status == trace.StatusRunning || sp.EndedAt.IsZero() {
		return
	}
	e.mu.Lock()
	if e.closed || len(e.queue) >= e.cfg.MaxQueue {
		e.dropped++
		e.mu.Unlock()
		return
	}
	e.queue = append(e.queue, sp)
	full := len(e.queue) == e.cfg.BatchSize
	e.mu.Unlock()
	if full {
		select {
		case e.kick <- struct{}{}:
		default:
		}
	}
}

// Close sends what is queued, stops the Exporter and logs one warning when
// spans were dropped; it returns ErrDropped (with the count and the last
// failure) then. Spans recorded after Close are dropped. ctx bounds the
// wait for the last request.
func (e *Exporter) Close(ctx context.Context) error {
	e.mu.Lock()
	if !e.closed {
		e.closed = true
		close(e.done)
	}
	e.mu.Unlock()
	select {
	case <-e.exit:
	case <-ctx.Done():
	}
	_ = e.client.Stop(ctx)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.dropped == 0 {
		return nil
	}
	e.cfg.Logger.Warn("otel: spans dropped, not exported", "dropped", e.dropped, "sent", e.sent, "err", e.err)
	return fmt.Errorf("%w: %d of %d (%w)", ErrDropped, e.dropped, e.dropped+e.sent, e.err)
}

// Flush sends what was queued before the call and waits for it; it
// returns the error of a failed request, if any. Spans a backoff drops
// are dropped, not waited for.
func (e *Exporter) Flush(ctx context.Context) error {
	reply := make(chan error, 1)
	select {
	case e.flush <- reply:
	case <-e.exit:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("otlp: flush: %w", ctx.Err())
	}
	select {
	case err := <-reply:
		return err
	case <-ctx.Done():
		return fmt.Errorf("otlp: flush: %w", ctx.Err())
	}
}

// Err is the last failed request's error, nil when every request went through.
func (e *Exporter) Err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// Dropped counts the spans that never reached the collector.
func (e *Exporter) Dropped() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dropped
}

// Sent counts the spans the collector accepted.
func (e *Exporter) Sent() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sent
}

func (e *Exporter) loop() {
	defer close(e.exit)
	tick := time.NewTicker(e.cfg.Interval)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			e.send()
		case <-e.kick:
			e.send()
		case reply := <-e.flush:
			reply <- e.send()
		case <-e.done:
			e.send()
			return
		}
	}
}

// After a failed request no request is made for a backoff, doubling from
// minBackoff to maxBackoff: spans for a collector that is down are dropped
// anyway, and dropping them unencoded makes a down collector cost a run
// nothing but the queueing.
const (
	minBackoff = time.Second
	maxBackoff = 30 * time.Second
)

// send takes the queue and exports it in requests of at most BatchSize
// spans. A failed request's spans are dropped and counted.
func (e *Exporter) send() error {
	e.mu.Lock()
	batch := e.queue
	e.queue, e.spare = e.spare[:0], nil
	e.mu.Unlock()
	var last error
	for rest := batch; len(rest) > 0; {
		if time.Now().Before(e.retryAt) {
			e.drop(len(rest))
			break
		}
		n := min(len(rest), e.cfg.BatchSize)
		if err := e.upload(rest[:n]); err != nil {
			last = err
			e.retryAt = time.Now().Add(e.backoff)
			e.backoff = min(2*e.backoff, maxBackoff)
		} else {
			e.backoff = minBackoff
		}
		rest = rest[n:]
	}
	clear(batch) // let go of the spans' maps
	e.mu.Lock()
	e.spare = batch[:0]
	e.mu.Unlock()
	return last
}

func (e *Exporter) drop(n int) {
	e.mu.Lock()
	e.dropped += int64(n)
	e.mu.Unlock()
}

func (e *Exporter) upload(spans []trace.Span) error {
	e.buf = e.buf[:0]
	for i := range spans {
		e.buf = e.enc.span(e.buf, &spans[i])
	}
	// The spans travel as ScopeSpans' unknown fields: protobuf-go writes
	// them out as they are, the same bytes as the spans field would be.
	ss := &tracepb.ScopeSpans{Scope: e.scope}
	ss.ProtoReflect().SetUnknown(e.buf)
	req := []*tracepb.ResourceSpans{{Resource: e.res, ScopeSpans: []*tracepb.ScopeSpans{ss}}}
	ctx, cancel := context.WithTimeout(context.Background(), e.cfg.Timeout)
	defer cancel()
	err := e.client.UploadTraces(ctx, req)
	e.mu.Lock()
	defer e.mu.Unlock()
	if err != nil {
		e.dropped += int64(len(spans))
		e.err = err
		return err
	}
	e.sent += int64(len(spans))
	return nil
}
