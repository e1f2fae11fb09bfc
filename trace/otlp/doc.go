// Package otlp sends agentry's trace spans to an OpenTelemetry collector over
// OTLP (HTTP/protobuf or gRPC), live as a run goes and for stored runs
// (`agentry traces export RUN_ID --otlp`). It is the only package that
// imports OpenTelemetry; the domain (trace, delegation) stays free of it.
//
// Decisions worth knowing:
//
//   - Exporter is a trace.Sink next to the store's Recorder (trace.Tee), so
//     every span the store gets also goes out. It sends a span once, when it
//     has ended: the runtime records a span at its start and again at its
//     end, and a collector wants the finished span.
//   - The hot path encodes and queues; it never waits on the network.
//     RecordSpan encodes the ended span into a byte queue under a mutex,
//     on the goroutine that ended it: that costs the same CPU as encoding
//     on the Exporter's goroutine (measured), and a queue of bytes keeps no
//     span's maps alive for the garbage collector. Sending happens on the
//     Exporter's goroutine in batches (BatchSize spans, or every Interval).
//   - Spans are encoded straight from trace.Span into OTLP protobuf bytes
//     with protowire (the protobuf library's wire API) and handed to the
//     official otlptracehttp/otlptracegrpc clients as the unknown fields
//     of a ScopeSpans message, which protobuf-go writes out unchanged: on
//     the wire they are the ScopeSpans.spans field. The clients still do
//     transport, headers, TLS and the OTEL_EXPORTER_OTLP_* settings.
//     Building OTLP message structs for protobuf-go to marshal (the first
//     version) cost about 3.5 µs per span in a run, most of export's
//     cost; encoding costs 0.2-0.3 µs. The SDK's span processor is not
//     used: the spans already exist. The collector tests decode every
//     field with the Collector's own receiver.
//   - Requests are few and large: BatchSize defaults to 2048 spans (cut
//     at 2 MiB, half a gRPC server's default limit), not the SDK's 512.
//     In a 200-delegation benchmark run (802 spans) each request cost
//     about 300 µs of CPU beyond its bytes with the garbage collector off,
//     and more with it on; one request a run instead of two took export
//     from about 1.25 to 1.15 times "export off". The queue's arrays grow
//     (doubling) to what the spans need and are kept (the queue and a
//     spare); a send of a few spans copies them out instead. Memory
//     held counts: an `agentry run` heap is a few MB, where each MB held
//     or allocated brings the next garbage collection closer.
//   - gRPC marshals each request into one of two buffers its Exporter
//     keeps (grpccodec.go); otlptracehttp marshals into a new slice per
//     request, which an official client does not let us change.
//   - A failed request is not retried: its spans are dropped and counted,
//     and later spans are dropped unencoded for a backoff (1s doubling to
//     30s), after an atomic load in RecordSpan. The first span, and the
//     first after a backoff, is sent at once, so a collector that is down
//     is found before a batch was encoded for nothing. A collector that is
//     down therefore costs a run almost nothing, and Close logs one
//     warning with the count.
//   - IDs: a run's ID is its trace ID and a span's ID its span ID (both made
//     W3C-shaped by trace.NewRunID and trace.NewSpanID); an imported run's
//     other IDs are hashed, stably, so parents stay consistent. With a
//     TRACEPARENT every span joins the caller's trace and the root's parent
//     is the caller's span; the root span keeps the traceparent as an
//     attribute (WithParent) so exporting the stored run later gives the
//     same trace.
//   - Names and attributes follow the GenAI semantic conventions of semconv
//     v1.41.0, the last release that holds them and the one the SDK ships:
//     span kinds CLIENT for chat, INTERNAL for in-process agents, tools and
//     workflows. agentry's own values go as agentry.*. Tasks, results,
//     context passed and tool arguments/results are content, sent only
//     with CaptureContent.
//   - The tests that need the OpenTelemetry Collector's own OTLP receiver
//     (go.opentelemetry.io/collector/receiver/otlpreceiver) live in the
//     nested module trace/otlp/collectortest: the receiver brings ~60
//     modules and newer x/net, x/sys and grpc, which agentry's go.mod should
//     not carry for a test. Run them with
//     `cd trace/otlp/collectortest && go test ./...`; `make test` does.
package otlp
