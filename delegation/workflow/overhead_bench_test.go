package workflow

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// nullHost answers at once and records nothing: what is left is the engine.
type nullHost struct{}
type nullSpan struct{}

func (nullHost) StartSpan(trace.Kind, string, string, map[string]any) Span { return nullSpan{} }
func (nullHost) Invoke(context.Context, string, registry.Agent, string) loop.Outcome {
	return loop.Outcome{Status: trace.StatusOK, Result: "done"}
}
func (nullHost) Agent(string) (registry.Agent, bool)      { return registry.Agent{}, false }
func (nullSpan) ID() string                               { return "s" }
func (nullSpan) End(trace.Status, string, map[string]any) {}
func (nullSpan) Event(string, map[string]any)             {}

// BenchmarkEngineOverheadPerStep: the engine alone (scheduling, templates,
// validation, spans handed to the host) per step of a 50-step chain.
func BenchmarkEngineOverheadPerStep(b *testing.B) {
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
	wf := mustParse(b, y.String())
	b.ReportAllocs()
	for b.Loop() {
		if res := Execute(context.Background(), nullHost{}, wf, Options{NoJudge: true}); res.Status != StatusOK {
			b.Fatal(res.Status)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/steps/1000, "µs/step")
}
