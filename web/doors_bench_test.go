package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/web"
	"github.com/agentry/agentry/web/core"
	"github.com/agentry/agentry/web/internal/webtest"
)

// BenchmarkDoors measures one call of an agent whose model answers at
// once, through each door for outside tools, and in-process (the
// delegation runtime's Start and Done, what `agentry run` does) as the
// baseline: the difference is what a door adds per call (HTTP, JSON,
// the store read of the outcome). Run with -benchtime=200x; compare
// ms/call of the sub-benchmarks of one run.
func BenchmarkDoors(b *testing.B) {
	site := webtest.StartSite(&testing.T{}, map[string]string{
		"quick.md": "---\nname: quick\ndescription: Answers at once\nmodel: script:quick.yaml\n---\nYou answer.\n",
	}, nil, func(c *web.Config) { c.Expose = core.Exposure{Agents: []string{"quick"}} })
	if err := os.WriteFile(filepath.Join(site.Scripts, "quick.yaml"), []byte("quick:\n  - say: \"ok\"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	post := func(path string, body any) []byte {
		raw, _ := json.Marshal(body)
		resp, err := http.Post(site.URL+path, "application/json", bytes.NewReader(raw))
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		if resp.StatusCode >= 300 {
			b.Fatalf("POST %s = %d %s", path, resp.StatusCode, buf.String())
		}
		return buf.Bytes()
	}
	perCall := func(b *testing.B, call func()) {
		call() // warm: first connection, first script load
		b.ResetTimer()
		start := time.Now()
		for range b.N {
			call()
		}
		b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/call")
	}
	b.Run("in-process", func(b *testing.B) {
		perCall(b, func() {
			ex, err := site.Runtime.Start(ctx, delegation.Request{Agent: "quick", Task: "x"})
			if err != nil {
				b.Fatal(err)
			}
			<-ex.Done()
			if err := site.Recorder.Flush(ctx); err != nil { // the trace written, as the doors wait for
				b.Fatal(err)
			}
		})
	})
	b.Run("api", func(b *testing.B) {
		perCall(b, func() { post("/api/v1/runs", map[string]any{"agent": "quick", "task": "x", "wait": true}) })
	})
	b.Run("a2a", func(b *testing.B) {
		n := 0
		perCall(b, func() {
			n++
			out := post("/a2a/quick", map[string]any{"jsonrpc": "2.0", "id": n, "method": "message/send", "params": map[string]any{
				"message": map[string]any{"kind": "message", "messageId": fmt.Sprint("m", n), "role": "user",
					"parts": []any{map[string]any{"kind": "text", "text": "x"}}}}})
			if !bytes.Contains(out, []byte(`"completed"`)) {
				b.Fatalf("message/send = %s", out)
			}
		})
	})
	b.Run("mcp-stdio", func(b *testing.B) {
		// `agentry mcp` as Claude Code starts it: its own process, agents
		// folder and trace database (SQLite, not the site's memory store).
		dir := b.TempDir()
		bin := filepath.Join(dir, "agentry")
		if out, err := exec.Command("go", "build", "-o", bin, "github.com/agentry/agentry/cmd/agentry").CombinedOutput(); err != nil {
			b.Fatalf("build agentry: %v\n%s", err, out)
		}
		cfg := fmt.Sprintf("agents: %s\ndb: %s\nmodels:\n  default: script:%s\nexpose:\n  agents: [quick]\n",
			site.Dir, filepath.Join(dir, "t.db"), filepath.Join(site.Scripts, "quick.yaml"))
		if err := os.WriteFile(filepath.Join(dir, "agentry.yaml"), []byte(cfg), 0o644); err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(bin, "mcp", "--config", filepath.Join(dir, "agentry.yaml"))
		cmd.Dir = dir
		callMCP(b, ctx, &sdk.CommandTransport{Command: cmd}, perCall)
	})
	b.Run("mcp-http", func(b *testing.B) {
		callMCP(b, ctx, &sdk.StreamableClientTransport{Endpoint: site.URL + "/mcp"}, perCall)
	})
}

// callMCP measures tools/call of quick over one session on t.
func callMCP(b *testing.B, ctx context.Context, t sdk.Transport, perCall func(*testing.B, func())) {
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, t, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	perCall(b, func() {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "quick", Arguments: map[string]any{"task": "x"}})
		if err != nil || res.IsError {
			b.Fatalf("tools/call: %v %+v", err, res)
		}
	})
}
