package delegation

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

const coordScript = `
coord:
  - calls:
      - {tool: delegate, args: {agent: a, task: "part A"}}
      - {tool: delegate, args: {agent: b, task: "part B"}}
  - say: "A and B done"
a:
  - {latency: 40ms, say: "A result", tokens: {input: 10, output: 2}}
b:
  - {latency: 40ms, say: "B result", tokens: {input: 10, output: 2}}
`

func twoChildren(execution string) map[string]string {
	return map[string]string{
		"coord": "subagents:\n  allow: [a, b]\n  execution: " + execution + "\n",
		"a":     "", "b": "",
	}
}

func TestParallelBatchRunsChildrenAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := setup(t, twoChildren("parallel"), coordScript, nil)
		res := f.run(t, "coord", "do it")
		if res.Status != trace.StatusOK || res.Result != "A and B done" {
			t.Fatalf("result = %+v", res)
		}
		a, b := f.sink.one(t, "invoke_agent a"), f.sink.one(t, "invoke_agent b")
		if !overlap(a, b) {
			t.Fatalf("children did not overlap: a %v–%v, b %v–%v", a.StartedAt, a.EndedAt, b.StartedAt, b.EndedAt)
		}
		d := f.sink.delegations()
		if a.ParentID != d["a"].ID || d["a"].ParentID != f.sink.one(t, "invoke_agent coord").ID {
			t.Fatal("a's invoke_agent span is not under its delegation span under coord")
		}
		r := toolResult(t, d["a"])
		if r.Status != "ok" || r.Agent != "a" || r.Result != "A result" || r.Depth != 1 {
			t.Fatalf("delegate result = %+v", r)
		}
		if d["a"].Attributes[semconv.AttrDelegationStatus] != "ok" || d["a"].Attributes[semconv.AttrContextMode] != "task_only" {
			t.Fatalf("delegation attributes = %v", d["a"].Attributes)
		}
		run := f.sink.runs[res.RunID]
		if run.Agents != 3 || run.InputTokens != 20 || run.OutputTokens != 4 {
			t.Fatalf("run totals = %+v", run)
		}
	})
}

func TestSequentialBatchRunsChildrenInCallOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := setup(t, twoChildren("sequential"), coordScript, nil)
		f.run(t, "coord", "do it")
		a, b := f.sink.one(t, "invoke_agent a"), f.sink.one(t, "invoke_agent b")
		if b.StartedAt.Before(a.EndedAt) {
			t.Fatalf("b started %v before a ended %v", b.StartedAt, a.EndedAt)
		}
	})
}

func TestDependsOnRunsDependentsAfterTheirDependenciesWithTheirResults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agents := map[string]string{"coord": "subagents:\n  allow: [a, b, c]\n", "a": "", "b": "", "c": ""}
		f := setup(t, agents, `
coord:
  - calls:
      - {tool: delegate, args: {agent: c, task: "combine", id: C, depends_on: [A, B]}}
      - {tool: delegate, args: {agent: a, task: "part A", id: A}}
      - {tool: delegate, args: {agent: b, task: "part B", id: B}}
  - say: done
a:
  - {latency: 30ms, say: "A result"}
b:
  - {latency: 30ms, say: "B result"}
c:
  - {say: "combined"}
`, nil)
		if res := f.run(t, "coord", "x"); res.Status != trace.StatusOK {
			t.Fatalf("result = %+v", res)
		}
		a, b, c := f.sink.one(t, "invoke_agent a"), f.sink.one(t, "invoke_agent b"), f.sink.one(t, "invoke_agent c")
		if !overlap(a, b) || c.StartedAt.Before(a.EndedAt) || c.StartedAt.Before(b.EndedAt) {
			t.Fatal("c did not wait for a and b, or a and b did not run together")
		}
		task := fmt.Sprint(c.Attributes[semconv.AttrTask])
		if !strings.Contains(task, "[A] a: A result") || !strings.Contains(task, "[B] b: B result") {
			t.Fatalf("c's task = %q", task)
		}
	})
}

func TestDependencyCyclesAreRejectedAndFailuresSkipDependents(t *testing.T) {
	agents := map[string]string{"coord": "subagents:\n  allow: [a, b, c, d]\n", "a": "", "b": "retry: {max_attempts: 1}\n", "c": "", "d": ""}
	f := setup(t, agents, `
coord:
  - calls:
      - {tool: delegate, args: {agent: a, task: "x", id: X, depends_on: [Y]}}
      - {tool: delegate, args: {agent: a, task: "y", id: Y, depends_on: [X]}}
      - {tool: delegate, args: {agent: b, task: "fails", id: F}}
      - {tool: delegate, args: {agent: c, task: "after F", id: G, depends_on: [F]}}
      - {tool: delegate, args: {agent: d, task: "independent"}}
  - say: done
a:
  - say: never
b:
  - error: "boom"
c:
  - say: never
d:
  - say: "d ok"
`, nil)
	if res := f.run(t, "coord", "x"); res.Status != trace.StatusOK {
		t.Fatalf("a child's failure ended the run: %+v", res)
	}
	byTask := map[string]delegateResult{}
	for _, sp := range f.sink.named("execute_tool delegate") {
		byTask[fmt.Sprint(sp.Attributes[semconv.AttrToolArguments])] = toolResult(t, sp)
	}
	var cyc, fail, skip, ok int
	for args, r := range byTask {
		switch {
		case strings.Contains(args, `"depends_on":["Y"]`) || strings.Contains(args, `"depends_on":["X"]`):
			if r.Status == "error" && strings.Contains(r.Error, "cycle") {
				cyc++
			}
		case strings.Contains(args, "fails"):
			if r.Status == "error" && strings.Contains(r.Error, "boom") {
				fail++
			}
		case strings.Contains(args, "after F"):
			if r.Status == "skipped" && strings.Contains(r.Error, `dependency "F"`) {
				skip++
			}
		case strings.Contains(args, "independent"):
			if r.Status == "ok" && r.Result == "d ok" {
				ok++
			}
		}
	}
	if cyc != 2 || fail != 1 || skip != 1 || ok != 1 {
		t.Fatalf("cycle %d fail %d skip %d ok %d: %+v", cyc, fail, skip, ok, byTask)
	}
	if len(f.sink.named("invoke_agent a")) != 0 || len(f.sink.named("invoke_agent c")) != 0 {
		t.Fatal("a rejected or skipped call started its agent")
	}
}

// gauge is a test model for leaf agents that counts how many calls run at once.
type gauge struct {
	active, peak atomic.Int64
	delay        time.Duration
}

func (g *gauge) Name() string { return "gauge" }

func (g *gauge) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	n := g.active.Add(1)
	defer g.active.Add(-1)
	for {
		p := g.peak.Load()
		if n <= p || g.peak.CompareAndSwap(p, n) {
			break
		}
	}
	select {
	case <-time.After(g.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &model.Response{Text: "leaf done"}, nil
}

func fanOutScript(n int) string {
	var b strings.Builder
	b.WriteString("coord:\n  - calls:\n")
	for i := range n {
		fmt.Fprintf(&b, "      - {tool: delegate, args: {agent: leaf, task: \"part %d\"}}\n", i)
	}
	b.WriteString("  - say: done\n")
	return b.String()
}

func TestCapsBoundHowManyChildrenRunAtOnce(t *testing.T) {
	cases := []struct {
		name     string
		perAgent int
		runWide  int
		wantPeak int64
		children int
	}{
		{"the parent's max_concurrent caps its children", 2, 0, 2, 6},
		{"the run-wide cap counts the whole tree", 10, 3, 3, 8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := &gauge{delay: 15 * time.Millisecond}
				agents := map[string]string{"coord": fmt.Sprintf("subagents:\n  allow: [leaf]\n  max_concurrent: %d\n", c.perAgent), "leaf": "model: gauge\n"}
				f := setup(t, agents, fanOutScript(c.children), func(cfg *Config) {
					cfg.Models["gauge"] = func(string) (model.LLM, error) { return g, nil }
					cfg.MaxConcurrent = c.runWide
				})
				res := f.run(t, "coord", "x")
				if res.Status != trace.StatusOK {
					t.Fatalf("result = %+v", res)
				}
				if p := g.peak.Load(); p != c.wantPeak {
					t.Fatalf("peak concurrency = %d, want %d", p, c.wantPeak)
				}
				ds := f.sink.named("execute_tool delegate")
				if len(ds) != c.children {
					t.Fatalf("%d delegations", len(ds))
				}
				for _, d := range ds {
					if toolResult(t, d).Status != "ok" {
						t.Fatalf("a queued call was not run: %v", d.Attributes)
					}
				}
				// With the bubble's clock the waits are exact: the last
				// call starts after (children-1)/peak rounds of 15 ms.
				last := ds[len(ds)-1]
				want := int64((c.children - 1) / int(c.wantPeak) * 15)
				if q, _ := last.Attributes[semconv.AttrQueuedMS].(int64); q != want {
					t.Fatalf("the last call's queued_ms = %v, want %d", last.Attributes[semconv.AttrQueuedMS], want)
				}
			})
		})
	}
}
