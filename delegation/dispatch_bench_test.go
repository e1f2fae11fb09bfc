package delegation

import (
	"context"
	"testing"
	"time"
)

// BenchmarkDispatchAgainstDelegation is the runtime's cost of one run that
// hands one task to one agent, models answering at once and the trace
// discarded: a delegation to a file agent, against a dispatched ad-hoc
// agent (which takes one more parent turn, get_agent_results).
func BenchmarkDispatchAgainstDelegation(b *testing.B) {
	cases := []struct{ name, agent, file, script string }{
		{"delegation", "coord", "subagents:\n  allow: [leaf]\n", `
coord:
  - calls: [{tool: delegate, args: {agent: leaf, task: "do it"}}]
  - say: done
leaf: [{say: "leaf done"}]
`},
		{"dispatch", "orch", orchFile, `
orch:
  - calls: [{tool: dispatch_agent, args: {agent_id: worker, mission: "do it", skills: [filesystem.read_file]}}]
  - calls: [{tool: get_agent_results}]
  - say: done
worker: [{say: "worker done"}]
`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			f := dispatchSetup(b, map[string]string{c.agent: c.file, "leaf": ""}, c.script, &recorder{})
			f.rt.cfg.Sink = discard{}
			start := time.Now()
			for b.Loop() {
				res, err := f.rt.Run(context.Background(), Request{Agent: c.agent, Task: "x"})
				if err != nil || res.Result != "done" {
					b.Fatalf("result = %+v, %v", res, err)
				}
			}
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/1e3/float64(b.N), "µs/run")
		})
	}
}
