package collectortest

import (
	"context"
	"encoding/hex"
	"fmt"
	"net"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
)

// collector is the OpenTelemetry Collector's own OTLP receiver, listening on
// HTTP and gRPC, feeding a sink.
type collector struct {
	sink          *consumertest.TracesSink
	httpURL, grpc string // base URLs for OTEL_EXPORTER_OTLP_ENDPOINT
}

func startCollector(t *testing.T) *collector {
	t.Helper()
	f := otlpreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*otlpreceiver.Config)
	grpcAddr, httpAddr := freeAddr(t), freeAddr(t)
	cfg.Protocols.GRPC.GetOrInsertDefault().NetAddr.Endpoint = grpcAddr
	cfg.Protocols.HTTP.GetOrInsertDefault().ServerConfig.NetAddr.Endpoint = httpAddr
	sink := new(consumertest.TracesSink)
	r, err := f.CreateTraces(context.Background(), receivertest.NewNopSettings(f.Type()), cfg, sink)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Shutdown(context.Background()) })
	return &collector{sink: sink, httpURL: "http://" + httpAddr, grpc: "http://" + grpcAddr}
}

// freeAddr is a loopback address nothing listens on at the moment.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// got is one span as the collector received it.
type got struct {
	TraceID, SpanID, ParentID string
	Name, Kind                string
	Attrs                     map[string]any
	Events                    []string
	Error                     bool
	Start, End                int64 // Unix ns
	Resource                  map[string]any
}

// spans waits until the collector holds at least n spans, then returns them
// all, flattened.
func (c *collector) spans(t *testing.T, n int) []got {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for c.sink.SpanCount() < n && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	var out []got
	for _, td := range c.sink.AllTraces() {
		for i := 0; i < td.ResourceSpans().Len(); i++ {
			rs := td.ResourceSpans().At(i)
			for j := 0; j < rs.ScopeSpans().Len(); j++ {
				ss := rs.ScopeSpans().At(j)
				for k := 0; k < ss.Spans().Len(); k++ {
					out = append(out, flatten(ss.Spans().At(k), rs.Resource().Attributes().AsRaw()))
				}
			}
		}
	}
	return out
}

func flatten(sp ptrace.Span, res map[string]any) got {
	g := got{
		TraceID: hexID(sp.TraceID()), SpanID: hexID(sp.SpanID()), Name: sp.Name(), Kind: sp.Kind().String(),
		Attrs: sp.Attributes().AsRaw(), Error: sp.Status().Code() == ptrace.StatusCodeError, Resource: res,
		Start: int64(sp.StartTimestamp()), End: int64(sp.EndTimestamp()),
	}
	if !sp.ParentSpanID().IsEmpty() {
		g.ParentID = hexID(sp.ParentSpanID())
	}
	for i := 0; i < sp.Events().Len(); i++ {
		g.Events = append(g.Events, sp.Events().At(i).Name())
	}
	return g
}

func hexID[T pcommon.TraceID | pcommon.SpanID](id T) string {
	switch v := any(id).(type) {
	case pcommon.TraceID:
		return hex.EncodeToString(v[:])
	case pcommon.SpanID:
		return hex.EncodeToString(v[:])
	}
	panic(fmt.Sprintf("%T", id))
}

func byName(spans []got) map[string]got {
	m := map[string]got{}
	for _, s := range spans {
		m[s.Name] = s
	}
	return m
}
