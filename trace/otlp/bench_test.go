package otlp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/otlp"
	"github.com/agentry/agentry/trace/sqlite"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
)

// envDiscard makes the test binary a discarding OTLP/HTTP server instead
// of running tests: the benchmark starts it as a separate process so its
// CPU is not counted as the exporter's.
const envDiscard = "AGENTRY_OTLP_BENCH_DISCARD"

func TestMain(m *testing.M) {
	if os.Getenv(envDiscard) == "1" {
		discardServer()
		return
	}
	os.Exit(m.Run())
}

// discardServer answers every OTLP/HTTP request with an empty success
// (an empty protobuf message) after reading the body, and every OTLP/gRPC
// export likewise; it prints its two addresses and stops when stdin closes.
func discardServer() {
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	gl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	fmt.Println(hl.Addr().String(), gl.Addr().String())
	go http.Serve(hl, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	gs := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(gs, discardGRPC{})
	go gs.Serve(gl)
	io.Copy(io.Discard, os.Stdin)
}

type discardGRPC struct {
	coltracepb.UnimplementedTraceServiceServer
}

func (discardGRPC) Export(context.Context, *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

// startDiscard starts discardServer in another process and returns its
// OTLP/HTTP and OTLP/gRPC endpoints.
func startDiscard(b *testing.B) (httpURL, grpcURL string) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envDiscard+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	addrs := strings.Fields(line)
	return "http://" + addrs[0], "http://" + addrs[1]
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

const delegations = 200

// exporting says where a run's spans go over OTLP: to shared, an Exporter
// that outlives the run, or, with shared nil, to a new Exporter for
// endpoint over protocol, started and closed with the run. The zero value
// is export off.
type exporting struct {
	shared             *otlp.Exporter
	endpoint, protocol string
}

// oneRun runs a parent that makes 200 delegations to a zero-latency script
// model, one per turn, with its trace written to SQLite through the
// Recorder as `agentry run` does, and over OTLP as to says. It returns the
// process CPU per delegation, from the run's start until the trace is in
// SQLite and every span was sent (or dropped), plus, for a new Exporter,
// its start and its Close.
func oneRun(b *testing.B, to exporting) time.Duration {
	var sc strings.Builder
	sc.WriteString("coord:\n")
	for range delegations {
		sc.WriteString("  - calls: [{tool: delegate, args: {agent: leaf, task: \"look this up\"}}]\n")
	}
	sc.WriteString("  - say: done\nleaf:\n  - {say: \"found it\", tokens: {input: 10, output: 3}}\n")
	file := func(name, extra string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: The " + name + " agent\n" + extra + "---\nYou are " + name + ".\n")}
	}
	snap, err := registry.Load(fstest.MapFS{
		"coord.md": file("coord", fmt.Sprintf("max_turns: %d\nsubagents:\n  allow: [leaf]\n", delegations+1)),
		"leaf.md":  file("leaf", ""),
	}, registry.Options{})
	if err != nil {
		b.Fatal(err)
	}
	sm, err := script.Parse([]byte(sc.String()))
	if err != nil {
		b.Fatal(err)
	}
	store, err := sqlite.Open(filepath.Join(b.TempDir(), "trace.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	quiet := slog.New(slog.DiscardHandler)
	rec := trace.NewRecorder(store, trace.RecorderConfig{Logger: quiet})
	var sink trace.Sink = rec
	var spent time.Duration // the new Exporter's start
	exp := to.shared
	if exp == nil && to.endpoint != "" {
		start := cpuTime()
		exp = newExporter(b, to.endpoint, to.protocol)
		spent = cpuTime() - start
	}
	if exp != nil {
		sink = trace.Tee(rec, exp)
	}
	rt, err := delegation.New(delegation.Config{Agents: registry.New(snap), DefaultModel: "script", Sink: sink, Logger: quiet,
		Models: model.Providers{"script": func(string) (model.LLM, error) { return sm, nil }}})
	if err != nil {
		b.Fatal(err)
	}
	start := cpuTime()
	res, err := rt.Run(context.Background(), delegation.Request{Agent: "coord", Task: "benchmark"})
	if err != nil || res.Status != trace.StatusOK {
		b.Fatalf("run = %+v, %v", res, err)
	}
	if err := rec.Close(context.Background()); err != nil {
		b.Fatal(err)
	}
	switch {
	case to.shared != nil:
		to.shared.Flush(context.Background()) // collector down: dropped, as intended
	case exp != nil:
		exp.Close(context.Background())
	}
	return (spent + cpuTime() - start) / delegations
}

func newExporter(b *testing.B, endpoint, protocol string) *otlp.Exporter {
	exp, err := otlp.New(context.Background(), otlp.Config{Endpoint: endpoint, Protocol: protocol, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	return exp
}

// BenchmarkExportOverhead measures the process CPU one delegation costs
// with export off, on (to a discarding OTLP server in another process,
// over HTTP and over gRPC) and with the collector down (nothing
// listening), the runs interleaved so they share the machine's load. It
// reports medians over b.N runs of each and their ratios to export off.
//
// Each destination is measured two ways. The plain figures use one
// Exporter for the whole benchmark, as `agentry serve` keeps one for all
// its runs: what export costs per delegation. The "-new" figures start a
// new Exporter for each run and close it after, as an `agentry run`
// process does for its one run: they add the Exporter's start, opening
// the connection (for gRPC, HTTP/2's set-up) and Close, spread here over
// 200 delegations.
func BenchmarkExportOverhead(b *testing.B) {
	onHTTP, onGRPC := startDiscard(b)
	modes := []struct{ name, endpoint, protocol string }{
		{"on-http", onHTTP, otlp.ProtocolHTTP},
		{"on-grpc", onGRPC, otlp.ProtocolGRPC},
		{"down", "http://" + closedAddr(b), otlp.ProtocolHTTP},
	}
	exps := make([]*otlp.Exporter, len(modes))
	for i, m := range modes {
		exps[i] = newExporter(b, m.endpoint, m.protocol)
		b.Cleanup(func() { exps[i].Close(context.Background()) })
	}
	var off []time.Duration
	shared, fresh := make([][]time.Duration, len(modes)), make([][]time.Duration, len(modes))
	for b.Loop() {
		off = append(off, oneRun(b, exporting{}))
		for i, m := range modes {
			shared[i] = append(shared[i], oneRun(b, exporting{shared: exps[i]}))
			fresh[i] = append(fresh[i], oneRun(b, exporting{endpoint: m.endpoint, protocol: m.protocol}))
		}
	}
	mOff := median(off)
	b.ReportMetric(float64(mOff.Nanoseconds())/1e3, "cpu-µs/delegation-off")
	for i, m := range modes {
		for _, r := range []struct {
			name string
			ds   []time.Duration
		}{{m.name, shared[i]}, {m.name + "-new", fresh[i]}} {
			b.ReportMetric(float64(median(r.ds).Nanoseconds())/1e3, "cpu-µs/delegation-"+r.name)
			b.ReportMetric(float64(median(r.ds))/float64(mOff), r.name+"/off")
		}
	}
}

func closedAddr(b *testing.B) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
