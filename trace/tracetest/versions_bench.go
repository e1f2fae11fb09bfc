package tracetest

import (
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// benchVersionUses reads the runs of each version, as a History page does,
// of an agent and of a workflow, over a store of 2,000 runs of 50 spans:
// half are runs of the agent writer (agent_version on their invoke_agent
// root), half of the workflow digest (workflow_version on an
// invoke_workflow root that also holds the run's inputs and a 2 KB
// result, the attributes the workflow's name is read beside).
func benchVersionUses(b *testing.B, open BenchOpenFunc) {
	s := open(b)
	defer s.Close()
	const runs, perRun = 2_000, 50
	base := time.Now().Add(-runs * time.Second)
	result := strings.Repeat("The digest of the week's notes. ", 64)
	for i := range runs {
		start := base.Add(time.Duration(i) * time.Second)
		r := trace.Run{ID: trace.NewRunID(), Status: trace.StatusOK, StartedAt: start, EndedAt: start.Add(time.Second)}
		root := trace.Span{ID: trace.NewSpanID(), RunID: r.ID, Status: trace.StatusOK, StartedAt: start, EndedAt: start.Add(time.Second)}
		if i%2 == 0 {
			r.Agent, root.Kind, root.Name, root.Agent = "writer", trace.KindInvokeAgent, "invoke_agent writer", "writer"
			root.Attributes = map[string]any{semconv.AttrAgentVersion: versionOf(i), semconv.AttrTask: "Write the digest"}
		} else {
			r.Agent, root.Kind, root.Name = "digest", trace.KindInvokeWorkflow, "invoke_workflow digest"
			root.Attributes = map[string]any{semconv.AttrWorkflow: "digest", semconv.AttrWorkflowFile: "digest.yaml",
				"inputs": map[string]any{"topic": "the week"}, semconv.AttrWorkflowVersion: versionOf(i), semconv.AttrResult: result}
		}
		spans := []trace.Span{root}
		for j := 1; j < perRun; j++ {
			sp := BenchSpan(r.ID, j, start.Add(time.Duration(j)*time.Millisecond))
			sp.ParentID, sp.Status, sp.EndedAt = root.ID, trace.StatusOK, sp.StartedAt.Add(time.Millisecond)
			spans = append(spans, sp)
		}
		if err := s.Apply(b.Context(), []trace.Run{r}, spans); err != nil {
			b.Fatal(err)
		}
	}
	vs, ok := s.(trace.VersionStore)
	if !ok {
		b.Fatalf("%T keeps no versions", s)
	}
	for _, c := range []struct{ kind, name string }{{"agent", "writer"}, {"workflow", "digest"}} {
		b.Run(c.kind, func(b *testing.B) {
			for b.Loop() {
				uses, err := vs.VersionUses(b.Context(), c.kind, c.name, 500)
				if err != nil || len(uses) != 500 {
					b.Fatalf("VersionUses(%s, %s) = %d, %v", c.kind, c.name, len(uses), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed())/float64(b.N)/1e6, "ms/op")
		})
	}
}

// versionOf is one of ten versions, for the i-th run.
func versionOf(i int) string { return strings.Repeat(string(rune('a'+i%10)), 64) }
