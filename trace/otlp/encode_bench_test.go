package otlp

import (
	"syscall"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// BenchmarkEncode measures encoding alone, per span, on the mix a
// delegation makes (two chat spans, the child's invoke_agent, the parent's
// execute_tool) with the attributes the runtime sets. Over 25,000
// delegations the spans do not fit in the CPU's cache, as in a long run.
func BenchmarkEncode(b *testing.B) {
	run, now := trace.NewRunID(), time.Now()
	root := trace.NewSpanID()
	var spans []trace.Span
	for range 25000 {
		tool, child := trace.NewSpanID(), trace.NewSpanID()
		chat := func(parent, agent string, depth int) trace.Span {
			return trace.Span{ID: trace.NewSpanID(), RunID: run, ParentID: parent, Kind: trace.KindChat, Name: "chat script", Agent: agent,
				Depth: depth, Status: trace.StatusOK, StartedAt: now, EndedAt: now, InputTokens: 10, OutputTokens: 3,
				Attributes: map[string]any{semconv.AttrModel: "script", semconv.AttrRetryAttempt: 0}}
		}
		spans = append(spans, chat(root, "coord", 0), chat(child, "leaf", 1),
			trace.Span{ID: child, RunID: run, ParentID: tool, Kind: trace.KindInvokeAgent, Name: "invoke_agent leaf", Agent: "leaf", Depth: 1,
				Status: trace.StatusOK, StartedAt: now, EndedAt: now, InputTokens: 10, OutputTokens: 3,
				Attributes: map[string]any{semconv.AttrContextMode: "task_only", semconv.AttrContextPassed: "look this up", semconv.AttrEffectiveTools: []string{},
					semconv.AttrModel: "script", semconv.AttrResult: "found it", semconv.AttrTask: "look this up"}},
			trace.Span{ID: tool, RunID: run, ParentID: root, Kind: trace.KindExecuteTool, Name: "execute_tool delegate", Agent: "coord",
				Status: trace.StatusOK, StartedAt: now, EndedAt: now,
				Attributes: map[string]any{semconv.AttrContextMode: "task_only", semconv.AttrDelegationStatus: "ok", semconv.AttrQueuedMS: int64(0),
					semconv.AttrTargetAgent: "leaf", semconv.AttrToolArguments: `{"agent":"leaf","task":"look this up"}`, semconv.AttrToolCallID: "call_3_1",
					semconv.AttrToolName: "delegate", semconv.AttrToolResult: `{"status":"ok","agent":"leaf","result":"found it"}`}})
	}
	var enc encoder
	buf := make([]byte, 0, 64<<20)
	var cpu time.Duration
	for b.Loop() {
		cpu0 := processCPU()
		buf = buf[:0]
		for i := range spans {
			buf = enc.span(buf, &spans[i])
		}
		cpu += processCPU() - cpu0
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(spans)), "ns/span")
	// CPU time is steadier than wall time on a shared machine.
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*len(spans)), "cpu-ns/span")
	b.ReportMetric(float64(len(buf))/float64(len(spans)), "bytes/span")
}

// processCPU is the CPU time the process has used (bench_test.go's cpuTime
// is in the external test package).
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
