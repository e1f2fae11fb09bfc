package mcp_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/tool/mcp"
	"github.com/agentry/agentry/delegation/tool/mcp/mcptest"
)

// benchCall measures one tool call's round trip through the adapter: JSON-RPC
// over the server's stdio, the server's work, and rendering the result.
func benchCall(b *testing.B, s mcp.Server, name, args string) {
	ctx := context.Background()
	c, err := mcp.Connect(ctx, s)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var call func(context.Context, json.RawMessage) (string, error)
	for _, t := range c.Tools() {
		if t.Spec().Name == name {
			call = t.Call
		}
	}
	if call == nil {
		b.Fatalf("no tool %s", name)
	}
	raw := json.RawMessage(args)
	start := time.Now()
	for b.Loop() {
		if _, err := call(ctx, raw); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N), "µs/call")
}

func BenchmarkCallEverythingEcho(b *testing.B) {
	benchCall(b, mcptest.Everything(b, "everything"), "everything.echo", `{"message":"bench"}`)
}

func BenchmarkCallGoSDKServer(b *testing.B) {
	exe, err := testExecutable()
	if err != nil {
		b.Fatal(err)
	}
	benchCall(b, mcp.Server{Name: "paged", Command: exe, Env: map[string]string{serveEnv: "tools"}}, "paged.tool-0", `{"n":1}`)
}

// BenchmarkStartEverything measures what a command waits for before its
// first run: start node, the MCP handshake and the tool list. Stopping is
// left out of the figure (it is paid at exit).
func BenchmarkStartEverything(b *testing.B) {
	s := mcptest.Everything(b, "everything")
	var total time.Duration
	for range b.N {
		start := time.Now()
		c, err := mcp.Connect(context.Background(), s)
		total += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/start")
}
