package registry

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// writeAgents writes n agent files shaped like real ones (tools, sub-agents,
// a paragraph of prompt) into ten subfolders of dir.
func writeAgents(tb testing.TB, dir string, n int) {
	tb.Helper()
	for i := range n {
		sub := filepath.Join(dir, fmt.Sprintf("team-%d", i%10))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			tb.Fatal(err)
		}
		text := fmt.Sprintf(`---
name: agent-%05d
description: Agent number %d answers questions about topic %d and hands sub-tasks to two colleagues.
model: sonnet
tools:
  allow: [web.fetch, filesystem.read_file, filesystem.grep]
  deny: [filesystem.write_file]
subagents:
  allow: [%s, %s]
  execution: parallel
  max_concurrent: 3
max_turns: 8
timeout: 2m
color: blue
---
You are agent %d. Answer questions about topic %d precisely. When a question needs
research, delegate it to a colleague with a short, self-contained task and summarise
what comes back. Cite your sources and say when you are unsure.
`, i, i, i, target(i+1, n), target(i+7, n), i, i)
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("agent-%05d.md", i)), []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// target names agent i, or the built-in general-purpose agent past the end,
// so the delegation graph has no cycles.
func target(i, n int) string {
	if i >= n {
		return "general-purpose"
	}
	return fmt.Sprintf("agent-%05d", i)
}

// BenchmarkLoad10k loads 10,000 agent files from disk; it reports ms/op and
// the heap the loaded Snapshot keeps alive (MB-retained).
func BenchmarkLoad10k(b *testing.B) {
	dir := b.TempDir()
	writeAgents(b, dir, 10_000)
	fsys := os.DirFS(dir)
	var retained uint64
	var cpu time.Duration
	b.ResetTimer()
	for b.Loop() {
		var before, after runtime.MemStats
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		cpu0 := cpuTime()
		s, err := Load(fsys, Options{})
		if err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - cpu0
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		if len(s.Agents()) != 10_000 || len(s.Problems()) != 0 {
			b.Fatalf("loaded %d agents with %d problems", len(s.Agents()), len(s.Problems()))
		}
		retained = after.HeapAlloc - before.HeapAlloc
		runtime.KeepAlive(s)
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
	b.ReportMetric(float64(retained)/(1<<20), "MB-retained")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// cpuTime is the process's user+system CPU time: unlike wall time it does
// not grow when other processes compete for the cores.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkApplyOneChange10k measures the rebuild after one file changes in
// a 10,000-agent snapshot: what a watcher reload or an editor Check costs.
func BenchmarkApplyOneChange10k(b *testing.B) {
	dir := b.TempDir()
	writeAgents(b, dir, 10_000)
	s, err := Load(os.DirFS(dir), Options{})
	if err != nil {
		b.Fatal(err)
	}
	data, _ := s.Raw("team-0/agent-00000.md")
	i := 0
	for b.Loop() {
		i++
		next := s.Apply(Change{Path: "team-0/agent-00000.md", Data: append(data, fmt.Sprintf("edit %d\n", i)...)})
		if next == s {
			b.Fatal("no change")
		}
	}
}
