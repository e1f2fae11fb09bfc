package delegation

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/delegation/tool/filesystem"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// deadlockGuard bounds a run that would otherwise hang if the behaviour under
// test broke, so the test fails with a status instead of hanging. It is far
// longer than any of these runs takes and is no claim about their speed.
const deadlockGuard = time.Minute

// tickingClock is a Now that moves one nanosecond per call, so the order in
// which spans start and end is exact and two spans never share a time.
func tickingClock() func() time.Time {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var n atomic.Int64
	return func() time.Time { return base.Add(time.Duration(n.Add(1))) }
}

func TestTurnLimitEndsWithLimitAndTheWorkSoFarWhenEveryTurnAlsoCalls(t *testing.T) {
	f := setup(t, map[string]string{"loop": "max_turns: 2\n"}, `
loop:
  - {say: "first thoughts", calls: [{tool: x}]}
  - {say: "second thoughts", calls: [{tool: x}]}
  - say: never played
`, nil)
	res := f.run(t, "loop", "x")
	if res.Status != trace.StatusLimit || !strings.Contains(res.Result, "second thoughts") || !strings.Contains(res.Error, "turn limit reached") {
		t.Fatalf("result = %+v, want limit with the last text said", res)
	}
	if n := len(f.sink.named("chat script")); n != 2 {
		t.Fatalf("%d model turns, want max_turns (2)", n)
	}
	sp := f.sink.one(t, "invoke_agent loop")
	if sp.Status != trace.StatusLimit || !strings.Contains(fmt.Sprint(sp.Attributes[semconv.AttrResult]), "second thoughts") {
		t.Fatalf("invoke span = %s %v", sp.Status, sp.Attributes[semconv.AttrResult])
	}
}

func TestCallsOverACapStartInCallOrder(t *testing.T) {
	cases := []struct {
		name             string
		perAgent, runCap int
	}{
		{"under the parent's max_concurrent of 1", 1, 0},
		{"under a run-wide cap of 1", 10, 1},
	}
	const n = 8
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			agents := map[string]string{"coord": fmt.Sprintf("subagents:\n  allow: [leaf]\n  max_concurrent: %d\n", c.perAgent), "leaf": ""}
			f := setup(t, agents, fanOutScript(n)+"leaf: [{say: leaf done}]\n", func(cfg *Config) { cfg.MaxConcurrent = c.runCap })
			if res := f.run(t, "coord", "x"); res.Status != trace.StatusOK {
				t.Fatalf("result = %+v", res)
			}
			var got, want []string
			leaves := f.sink.named("invoke_agent leaf") // in the order they started
			for i, sp := range leaves {
				got = append(got, fmt.Sprint(sp.Attributes[semconv.AttrTask]))
				want = append(want, fmt.Sprintf("part %d", i))
				if i > 0 && sp.StartedAt.Before(leaves[i-1].EndedAt) {
					t.Errorf("%q started before %q ended: the cap of 1 did not hold", got[i], got[i-1])
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("children started in the order %q, want the call order %q", got, want)
			}
		})
	}
}

// slotGauge wraps a model and counts the invocations inside a model call at
// once. An invocation holds a run-wide slot for as long as it works (its
// model calls included), so the peak is a lower bound on the slots held.
type slotGauge struct {
	model.LLM
	active, peak atomic.Int64
}

func (g *slotGauge) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	n := g.active.Add(1)
	defer g.active.Add(-1)
	for p := g.peak.Load(); n > p && !g.peak.CompareAndSwap(p, n); p = g.peak.Load() {
	}
	return g.LLM.Generate(ctx, req)
}

func TestTheRunWideCapCountsEveryLevelOfANestedTree(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agents := map[string]string{
			"coord": "subagents:\n  allow: [m1, m2, m3]\n",
			"m1":    "subagents:\n  allow: [leaf]\n  nested: true\n",
			"m2":    "subagents:\n  allow: [leaf]\n  nested: true\n",
			"m3":    "subagents:\n  allow: [leaf]\n  nested: true\n",
			"leaf":  "",
		}
		sc := "coord:\n  - calls:\n"
		for _, m := range []string{"m1", "m2", "m3"} {
			sc += fmt.Sprintf("      - {tool: delegate, args: {agent: %s, task: %q}}\n", m, "lead "+m)
		}
		sc += "  - say: tree done\n"
		for _, m := range []string{"m1", "m2", "m3"} {
			sc += m + ":\n  - {latency: 2ms, calls: [" +
				"{tool: delegate, args: {agent: leaf, task: a}}, {tool: delegate, args: {agent: leaf, task: b}}, {tool: delegate, args: {agent: leaf, task: c}}]}\n" +
				"  - {latency: 2ms, say: " + m + " done}\n"
		}
		sc += "leaf: [{latency: 3ms, say: leaf done}]\n"
		sm, err := script.Parse([]byte(sc))
		if err != nil {
			t.Fatal(err)
		}
		g := &slotGauge{LLM: sm}
		f := setup(t, agents, sc, func(c *Config) {
			c.Models["script"] = func(string) (model.LLM, error) { return g, nil }
			c.MaxConcurrent = 2
			c.Timeout = deadlockGuard
		})
		res := f.run(t, "coord", "x")
		if res.Status != trace.StatusOK || res.Result != "tree done" {
			t.Fatalf("result = %+v, want the tree to finish under the cap", res)
		}
		if p := g.peak.Load(); p > 2 || p < 1 {
			t.Fatalf("%d invocations worked at once, want at most the run-wide cap of 2", p)
		}
		if n := len(f.sink.named("invoke_agent leaf")); n != 9 {
			t.Fatalf("%d leaves ran, want 9", n)
		}
		for _, d := range f.sink.named("execute_tool delegate") {
			if r := toolResult(t, d); r.Status != "ok" {
				t.Fatalf("delegation to %s ended %s: %s", r.Agent, r.Status, r.Error)
			}
		}
	})
}

// withRecorder makes every script model the run builds record its requests.
func withRecorder(sc string, rec *recorder) func(*Config) {
	return func(c *Config) {
		c.Models["script"] = func(string) (model.LLM, error) {
			m, err := script.Parse([]byte(sc))
			rec.LLM = m
			return rec, err
		}
	}
}

func requestTools(req model.Request) []string { return toolNames(req.Tools) }

func TestTheDelegateToolIsNotOfferedToAChildWithoutNested(t *testing.T) {
	agents := map[string]string{"coord": "subagents:\n  allow: [mid]\n", "mid": "subagents:\n  allow: [leaf]\n", "leaf": ""}
	sc := "coord:\n  - calls: [{tool: delegate, args: {agent: mid, task: t}}]\n  - say: done\nmid: [{say: mid done}]\n"
	rec := &recorder{}
	f := setup(t, agents, sc, func(c *Config) {
		ws, err := filesystem.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		c.Tools = ws.Tools()
		withRecorder(sc, rec)(c)
	})
	if res := f.run(t, "coord", "x"); res.Status != trace.StatusOK {
		t.Fatalf("result = %+v", res)
	}
	root := f.sink.one(t, "invoke_agent coord").Attributes[semconv.AttrEffectiveTools].([]string)
	if !slices.Contains(root, DelegateTool) {
		t.Fatalf("the root's effective tools %v lack delegate; the test proves nothing", root)
	}
	mid := f.sink.one(t, "invoke_agent mid").Attributes[semconv.AttrEffectiveTools].([]string)
	if slices.Contains(mid, DelegateTool) || !slices.Contains(mid, "filesystem.read_file") {
		t.Fatalf("mid's effective tools = %v, want its tools without delegate", mid)
	}
	reqs := rec.reqs["mid"]
	if len(reqs) != 1 {
		t.Fatalf("mid made %d model calls", len(reqs))
	}
	if offered := requestTools(reqs[0]); slices.Contains(offered, DelegateTool) || !slices.Equal(offered, mid) {
		t.Fatalf("mid's model was offered %v, want exactly its effective tools %v", offered, mid)
	}
}

func TestGeneralPurposeRunsWithTheParentsPromptAndEffectiveTools(t *testing.T) {
	agents := map[string]string{"coord": "tools:\n  allow: [filesystem.read_*, filesystem.list_dir, web]\nsubagents:\n  allow: [general-purpose]\n"}
	sc := "coord:\n  - calls: [{tool: delegate, args: {agent: general-purpose, task: look around}}]\n  - say: done\ngeneral-purpose: [{say: looked}]\n"
	rec := &recorder{}
	f := setup(t, agents, sc, func(c *Config) {
		ws, err := filesystem.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		c.Tools = ws.Tools()
		c.GlobalTools.Deny = []string{"filesystem.list_dir"}
		withRecorder(sc, rec)(c)
	})
	if res := f.run(t, "coord", "x"); res.Status != trace.StatusOK {
		t.Fatalf("result = %+v", res)
	}
	parentTools := f.sink.one(t, "invoke_agent coord").Attributes[semconv.AttrEffectiveTools].([]string)
	if !slices.Equal(parentTools, []string{DelegateTool, "filesystem.read_file", loop.GetAgentResultsTool}) {
		t.Fatalf("coord's effective tools = %v; the fixture is off", parentTools)
	}
	gpSpan := f.sink.one(t, "invoke_agent general-purpose")
	gpTools := gpSpan.Attributes[semconv.AttrEffectiveTools].([]string)
	if want := []string{"filesystem.read_file"}; !slices.Equal(gpTools, want) {
		t.Fatalf("general-purpose's effective tools = %v, want the parent's %v (without delegate: it cannot delegate)", gpTools, want)
	}
	parent, gp := rec.reqs["coord"][0], rec.reqs["general-purpose"]
	if len(gp) != 1 {
		t.Fatalf("general-purpose made %d model calls", len(gp))
	}
	if parent.System == "" || gp[0].System != parent.System {
		t.Fatalf("general-purpose's system prompt = %q, want the parent's %q", gp[0].System, parent.System)
	}
	if got := requestTools(gp[0]); !slices.Equal(got, gpTools) {
		t.Fatalf("general-purpose's model was offered %v, want %v", got, gpTools)
	}
	if msgs := gp[0].Messages; len(msgs) != 1 || msgs[0].Content != "look around" {
		t.Fatalf("general-purpose's conversation = %+v, want a fresh one with only its task", msgs)
	}
}

// gate is a model for two children, slow and fast: slow announces that it
// started and then waits for release; fast answers once slow has started.
type gate struct {
	slowStarted, release chan struct{}
	once                 sync.Once
}

func (g *gate) Name() string { return "gate" }

func (g *gate) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	wait := g.slowStarted
	if req.Agent == "slow" {
		g.once.Do(func() { close(g.slowStarted) })
		wait = g.release
	}
	select {
	case <-wait:
		return &model.Response{Text: req.Agent + " answer"}, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// streamSink records every span event in order and releases the slow child
// once it sees the parent's second model call start: only a parent called
// again while slow runs (with fast's result) lets the run end.
type streamSink struct {
	*memSink
	g     *gate
	once  sync.Once
	chats atomic.Int32

	mu     sync.Mutex
	events []trace.Span
}

func (s *streamSink) RecordSpan(sp trace.Span) {
	s.memSink.RecordSpan(sp)
	s.mu.Lock()
	s.events = append(s.events, sp)
	s.mu.Unlock()
	if sp.Kind == trace.KindChat && sp.Agent == "coord" && sp.Status == trace.StatusRunning && s.chats.Add(1) == 2 {
		s.once.Do(func() { close(s.g.release) })
	}
}

func TestParallelStreamingCallsTheParentAgainAsEachResultLands(t *testing.T) {
	agents := map[string]string{
		"coord": "subagents:\n  allow: [slow, fast]\n  execution: parallel_streaming\n",
		"slow":  "model: gate\n", "fast": "model: gate\n",
	}
	sc := "coord:\n  - calls:\n      - {tool: delegate, args: {agent: slow, task: s}}\n      - {tool: delegate, args: {agent: fast, task: f}}\n" +
		"  - say: fast is in\n  - say: both in\n"
	g := &gate{slowStarted: make(chan struct{}), release: make(chan struct{})}
	var sink *streamSink
	f := setup(t, agents, sc, func(c *Config) {
		c.Models["gate"] = func(string) (model.LLM, error) { return g, nil }
		sink = &streamSink{memSink: c.Sink.(*memSink), g: g}
		c.Sink = sink
		c.Now = tickingClock()
		c.Timeout = deadlockGuard // slow is only released by fast's streamed result
	})
	res := f.run(t, "coord", "x")
	if res.Status != trace.StatusOK || res.Result != "both in" {
		t.Fatalf("result = %+v, want ok; slow is released only when coord is called again while slow still runs", res)
	}
	slow, fast := f.sink.one(t, "invoke_agent slow"), f.sink.one(t, "invoke_agent fast")
	if !overlap(slow, fast) {
		t.Fatalf("children did not overlap: slow %v–%v, fast %v–%v", slow.StartedAt, slow.EndedAt, fast.StartedAt, fast.EndedAt)
	}
	// Where in the event stream each delegation ended, and where the
	// parent's next turn (the batch has returned) started.
	ended := map[string]int{}
	nextTurn := -1
	chats := 0
	for i, ev := range sink.events {
		switch {
		case ev.Name == "execute_tool delegate" && ev.Status != trace.StatusRunning:
			ended[fmt.Sprint(ev.Attributes[semconv.AttrTargetAgent])] = i
		case ev.Kind == trace.KindChat && ev.Agent == "coord" && ev.Status == trace.StatusRunning:
			if chats++; chats == 2 {
				nextTurn = i
			}
		}
	}
	fastEnd, fok := ended["fast"]
	slowEnd, sok := ended["slow"]
	if !fok || !sok || nextTurn < 0 {
		t.Fatalf("events lack a delegation end or coord's second turn: %v, next turn %d", ended, nextTurn)
	}
	if !(fastEnd < nextTurn && nextTurn < slowEnd) {
		t.Fatalf("event order: fast ended at %d, slow at %d, coord's next turn at %d; want fast, the next turn, then slow", fastEnd, slowEnd, nextTurn)
	}
	if n := len(f.sink.named("chat script")); n != 3 {
		t.Fatalf("coord made %d model calls, want 3: the batch, fast's result, slow's after the early answer", n)
	}
	if sp := sink.events[fastEnd]; !sp.EndedAt.Before(slow.EndedAt) || !strings.Contains(fmt.Sprint(sp.Attributes[semconv.AttrToolResult]), "fast answer") {
		t.Fatalf("fast's delegation span was recorded as %v at %v, before slow ended at %v?", sp.Attributes[semconv.AttrToolResult], sp.EndedAt, slow.EndedAt)
	}
}
