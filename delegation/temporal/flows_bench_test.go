package temporal_test

import (
	"context"
	"testing"

	flow "github.com/agentry/agentry/delegation/workflow"
)

// fourSteps is a workflow of four sequential steps, one inline agent each.
const fourSteps = `workflow: {name: four, description: Four steps in a row}
agents:
  s1: {prompt: one}
  s2: {prompt: "two after {{steps.a.output}}"}
  s3: {prompt: "three after {{steps.b.output}}"}
  s4: {prompt: "four after {{steps.c.output}}"}
steps:
  - {id: a, agent: s1}
  - {id: b, agent: s2}
  - {id: c, agent: s3}
  - {id: d, agent: s4}
`

const fourScript = "s1: [{say: one}]\ns2: [{say: two}]\ns3: [{say: three}]\ns4: [{say: four}]\n"

// BenchmarkWorkflowStep runs a four-step workflow in-process and on a real
// server (one worker in this process), and reports the time per step: on
// Temporal a step is the engine's own work plus an agentry.Invocation
// workflow started by the PlayWorkflow activity (Root-less: Turn and Close).
func BenchmarkWorkflowStep(b *testing.B) {
	wf, probs := flow.Parse("four.yaml", []byte(fourSteps), nil)
	if wf == nil {
		b.Fatal(probs)
	}
	b.Run("inprocess", func(b *testing.B) {
		f := newFixture(b, fourScript)
		for b.Loop() {
			if res := flow.Run(context.Background(), f.rt, wf, "", flow.Options{}); res.Status != flow.StatusOK {
				b.Fatalf("run = %s %s", res.Status, res.Error)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(4*b.N), "µs/step")
	})
	b.Run("server", func(b *testing.B) {
		f := newFixture(b, fourScript)
		eng := serve(b, f, 1)
		for b.Loop() {
			x, err := eng.StartWorkflow(context.Background(), "four.yaml", []byte(fourSteps), nil, "", 0, nil)
			if err != nil {
				b.Fatal(err)
			}
			if r, err := x.Wait(context.Background()); err != nil || r.Result.Status != flow.StatusOK {
				b.Fatalf("run = %+v, %v", r.Result, err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(4*b.N), "µs/step")
	})
}
