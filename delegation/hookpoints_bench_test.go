package delegation

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentry/agentry/delegation/hooks"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/delegation/tool/filesystem"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// BenchmarkToolCallHook measures what a pre_tool hook adds to a tool call:
// runs of one agent making toolCalls filesystem.read_file calls, with no
// hook and with a real `true` command as the hook. It reports the median
// time per tool call over the runs.
func BenchmarkToolCallHook(b *testing.B) {
	for _, c := range []struct {
		name string
		set  hooks.Set
	}{
		{"none", nil},
		{"true", hooks.Set{hooks.PreTool: {{Command: "true"}}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			rt := hookBenchRuntime(b, c.set)
			var per []time.Duration
			for b.Loop() {
				start := time.Now()
				res, err := rt.Run(context.Background(), Request{Agent: "reader", Task: "read"})
				if err != nil || res.Status != trace.StatusOK {
					b.Fatalf("run = %+v, %v", res, err)
				}
				per = append(per, time.Since(start)/toolCalls)
			}
			sort.Slice(per, func(i, j int) bool { return per[i] < per[j] })
			b.ReportMetric(float64(per[len(per)/2].Nanoseconds())/1e3, "µs/tool_call-median")
		})
	}
}

const toolCalls = 20

func hookBenchRuntime(b *testing.B, set hooks.Set) *Runtime {
	b.Helper()
	ws := b.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello"), 0o644); err != nil {
		b.Fatal(err)
	}
	var sc strings.Builder
	sc.WriteString("reader:\n")
	for range toolCalls {
		sc.WriteString("  - calls: [{tool: filesystem.read_file, args: {path: a.txt}}]\n")
	}
	sc.WriteString("  - say: done\n")
	sm, err := script.Parse([]byte(sc.String()))
	if err != nil {
		b.Fatal(err)
	}
	snap, err := registry.Load(fstest.MapFS{"reader.md": {Data: []byte(agentFile("reader", fmt.Sprintf("max_turns: %d\n", toolCalls+1)))}}, registry.Options{})
	if err != nil {
		b.Fatal(err)
	}
	w, err := filesystem.Open(ws)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w.Close() })
	cfg := Config{
		Agents: registry.New(snap), DefaultModel: "script", Tools: w.Tools(),
		Models: model.Providers{"script": func(string) (model.LLM, error) { return sm, nil }},
		Logger: slog.New(slog.DiscardHandler),
	}
	if set != nil {
		r, err := hooks.New(set, ws)
		if err != nil {
			b.Fatal(err)
		}
		cfg.Hooks = r
	}
	rt, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return rt
}
