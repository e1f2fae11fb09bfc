package workflow_test

import (
	"context"
	"fmt"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry"
)

func scriptRuntime(b *testing.B, src string, maxConc int) *delegation.Runtime {
	b.Helper()
	m, err := script.Parse([]byte(src))
	if err != nil {
		b.Fatal(err)
	}
	rt, err := delegation.New(delegation.Config{
		Agents:       registry.New(nil),
		Models:       model.Providers{"script": func(string) (model.LLM, error) { return m, nil }},
		DefaultModel: "script:x", MaxConcurrent: maxConc,
	})
	if err != nil {
		b.Fatal(err)
	}
	return rt
}

func mustLoad(b *testing.B, src string) *workflow.Workflow {
	b.Helper()
	wf, probs := workflow.Parse("bench.yaml", []byte(src), nil)
	if wf == nil {
		b.Fatal(probs)
	}
	return wf
}

// BenchmarkStepOverhead: a chain of 50 sequential steps, each an invocation
// of the real runtime on a zero-latency script model; reports µs per step
// (engine plus runtime, the model's own time being zero), as wall time and
// as the process's CPU time, which a machine shared with other work
// inflates less.
func BenchmarkStepOverhead(b *testing.B) {
	const steps = 50
	var y strings.Builder
	y.WriteString("workflow: {name: chain}\nagents:\n  a: {prompt: \"step\"}\nsteps:\n")
	for i := range steps {
		if i == 0 {
			fmt.Fprintf(&y, "  - {id: s%d, agent: a}\n", i)
		} else {
			fmt.Fprintf(&y, "  - {id: s%d, agent: a, input: \"{{steps.s%d.output}}\"}\n", i, i-1)
		}
	}
	wf := mustLoad(b, y.String())
	rt := scriptRuntime(b, "a:\n  - say: done\n", 16)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	for b.Loop() {
		res := workflow.Run(context.Background(), rt, wf, "script:x", workflow.Options{NoJudge: true})
		if res.Status != workflow.StatusOK {
			b.Fatal(res.Status, res.Error)
		}
	}
	cpu = processCPU() - cpu
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/steps, "µs/step")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N)/steps, "cpu-µs/step")
}

// BenchmarkMap1000 maps over 1,000 elements at concurrency 20 and reports
// the peak heap in MB, sampled every millisecond during the run.
func BenchmarkMap1000(b *testing.B) {
	wf := mustLoad(b, `workflow: {name: m}
inputs:
  - {name: items, type: json, required: true}
agents:
  each: {prompt: "process"}
  sum: {prompt: "combine"}
steps:
  - id: fan
    type: map
    map: {over: "{{inputs.items}}", agent: each, reduce: sum, concurrency: 20}
`)
	items := make([]any, 1000)
	for i := range items {
		items[i] = map[string]any{"id": i, "text": strings.Repeat("x", 200)}
	}
	rt := scriptRuntime(b, "each:\n  - {latency: 1ms, say: '{\"ok\": true}'}\nsum:\n  - say: combined\n", 0)
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				metrics.Read(sample)
				if v := sample[0].Value.Uint64(); v > peak.Load() {
					peak.Store(v)
				}
			}
		}
	}()
	for b.Loop() {
		res := workflow.Run(context.Background(), rt, wf, "script:x", workflow.Options{Inputs: map[string]any{"items": items}, NoJudge: true})
		if res.Status != workflow.StatusOK {
			b.Fatal(res.Status, res.Error)
		}
	}
	close(stop)
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
}

// BenchmarkParallel100x50ms: one parallel step of 100 agents of 50 ms each;
// reports the makespan over the ideal 50 ms.
func BenchmarkParallel100x50ms(b *testing.B) {
	var y strings.Builder
	y.WriteString("workflow: {name: p}\nagents:\n  a: {prompt: \"score\"}\nsteps:\n  - id: fan\n    parallel:\n")
	for i := range 100 {
		fmt.Fprintf(&y, "      - {agent: a, output_key: k%d}\n", i)
	}
	wf := mustLoad(b, y.String())
	rt := scriptRuntime(b, "a:\n  - {latency: 50ms, say: done}\n", 0)
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		res := workflow.Run(context.Background(), rt, wf, "script:x", workflow.Options{NoJudge: true})
		total += time.Since(start)
		if res.Status != workflow.StatusOK {
			b.Fatal(res.Status, res.Error)
		}
	}
	b.ReportMetric(float64(total)/float64(b.N)/float64(50*time.Millisecond), "makespan/ideal")
}
