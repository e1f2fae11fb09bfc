package delegation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/orchestrator"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// testTool is a tool named name that runs fn.
func testTool(name string, fn func(ctx context.Context) (string, error)) tool.Tool {
	return tool.Func{
		Def: model.Tool{Name: name, Description: "test", Parameters: json.RawMessage(`{"type":"object"}`)},
		Fn:  func(ctx context.Context, _ json.RawMessage) (string, error) { return fn(ctx) },
	}
}

// manualClock is a Now that moves only when told.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestAToolCallOverTheToolTimeoutEndsTimedOutAndTheAgentGoesOn(t *testing.T) {
	slow := testTool("test.slow", func(ctx context.Context) (string, error) {
		<-ctx.Done()
		return "", context.Cause(ctx)
	})
	f := setup(t, map[string]string{"a": ""}, "a:\n  - calls: [{tool: test.slow}]\n  - say: gave up on it\n", func(c *Config) {
		c.Tools = []tool.Tool{slow}
		c.Limits.ToolTimeout = 10 * time.Millisecond
	})
	if res := f.run(t, "a", "x"); res.Status != trace.StatusOK {
		t.Fatalf("result = %+v", res)
	}
	sp := f.sink.one(t, "execute_tool test.slow")
	if sp.Status != trace.StatusTimeout || !strings.Contains(sp.Error, "tool timed out after 10ms") {
		t.Fatalf("span = %s %q", sp.Status, sp.Error)
	}
}

func TestACircuitOpensAfterConsecutiveFailuresAndHalfOpensAfterTheCooldown(t *testing.T) {
	clock := &manualClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	var calls int
	failing := true
	flaky := testTool("flaky.fetch", func(context.Context) (string, error) {
		calls++
		if failing {
			return "", tool.MarkUnavailable(errors.New("server down"))
		}
		return "fine", nil
	})
	f := setup(t, map[string]string{"a": ""}, "a:\n  - calls: [{tool: flaky.fetch}]\n  - say: done\n", func(c *Config) {
		c.Tools = []tool.Tool{flaky}
		c.Now = clock.Now
		c.Limits.BreakerFailures, c.Limits.BreakerCooldown = 2, time.Minute
	})
	inChat := func() { f.runIn(t, "a", "x", "chat-1") }
	for range 3 {
		inChat()
	}
	sps := f.sink.named("execute_tool flaky.fetch")
	if calls != 2 || sps[2].Attributes[orchestrator.AttrCircuit] != orchestrator.CircuitOpen || !strings.Contains(sps[2].Error, "circuit open for tool flaky.fetch after 2 consecutive failures") {
		t.Fatalf("calls = %d, third span = %v %q", calls, sps[2].Attributes[orchestrator.AttrCircuit], sps[2].Error)
	}
	if sps[0].Attributes[orchestrator.AttrCircuit] != orchestrator.CircuitClosed || sps[2].Attributes[orchestrator.AttrCircuitServer] != orchestrator.CircuitOpen {
		t.Errorf("first span circuit %v, third span's server circuit %v; want closed and open", sps[0].Attributes[orchestrator.AttrCircuit], sps[2].Attributes[orchestrator.AttrCircuitServer])
	}
	clock.add(time.Minute)
	failing = false
	inChat()
	inChat()
	sps = f.sink.named("execute_tool flaky.fetch")
	if calls != 4 || sps[3].Attributes[orchestrator.AttrCircuit] != orchestrator.CircuitHalfOpen || sps[4].Attributes[orchestrator.AttrCircuit] != orchestrator.CircuitClosed {
		t.Fatalf("calls = %d, after the cooldown circuits %v then %v; want half_open then closed", calls, sps[3].Attributes[orchestrator.AttrCircuit], sps[4].Attributes[orchestrator.AttrCircuit])
	}
}

// A breaker counts failures of what a tool depends on, not the call's own
// mistakes: five reads of missing files leave the circuit closed (issue 30).
func TestMissingFilesDoNotOpenACircuit(t *testing.T) {
	f := dispatchSetup(t, map[string]string{"a": "tools: [filesystem]\n"}, `
a:
  - calls: [{tool: filesystem.read_file, args: {path: nope1.txt}}, {tool: filesystem.read_file, args: {path: nope2.txt}},
            {tool: filesystem.read_file, args: {path: nope3.txt}}, {tool: filesystem.read_file, args: {path: nope4.txt}},
            {tool: filesystem.read_file, args: {path: nope5.txt}}]
  - calls: [{tool: filesystem.read_file, args: {path: tasks.txt}}]
  - say: done
`, &recorder{})
	f.rt.cfg.Limits.BreakerFailures, f.rt.cfg.Limits.BreakerCooldown = 5, time.Minute
	f.run(t, "a", "x")
	sps := f.sink.named("execute_tool filesystem.read_file")
	if last := sps[len(sps)-1]; last.Status != trace.StatusOK || last.Attributes[orchestrator.AttrCircuit] != orchestrator.CircuitClosed {
		t.Fatalf("the read after five missing files = %s %q circuit %v, want ok through a closed circuit", last.Status, last.Error, last.Attributes[orchestrator.AttrCircuit])
	}
}

// One conversation's failures open its own circuit, not another's: a
// breaker is per conversation (issue 30).
func TestACircuitOpenedInOneConversationIsClosedInAnother(t *testing.T) {
	down := testTool("flaky.fetch", func(context.Context) (string, error) {
		return "", tool.MarkUnavailable(errors.New("server down"))
	})
	f := setup(t, map[string]string{"a": ""}, "a:\n  - calls: [{tool: flaky.fetch}, {tool: flaky.fetch}, {tool: flaky.fetch}]\n  - say: done\n", func(c *Config) {
		c.Tools = []tool.Tool{down}
		c.Limits.BreakerFailures, c.Limits.BreakerCooldown = 2, time.Hour
	})
	f.runIn(t, "a", "x", "chat-1")
	f.runIn(t, "a", "x", "chat-2")
	sps := f.sink.named("execute_tool flaky.fetch")
	var states []any
	for _, sp := range sps {
		states = append(states, sp.Attributes[orchestrator.AttrCircuit])
	}
	want := []any{orchestrator.CircuitClosed, orchestrator.CircuitClosed, orchestrator.CircuitOpen, orchestrator.CircuitClosed, orchestrator.CircuitClosed, orchestrator.CircuitOpen}
	if fmt.Sprint(states) != fmt.Sprint(want) {
		t.Fatalf("circuits %v, want %v: each conversation opens its own", states, want)
	}
}

func TestTheConversationWindowStopsARunAndItsFollowUpButNotANewConversation(t *testing.T) {
	noop := testTool("test.noop", func(context.Context) (string, error) { return "ok", nil })
	f := setup(t, map[string]string{"a": ""}, `
a:
  - calls: [{tool: test.noop}, {tool: test.noop}]
  - calls: [{tool: test.noop}, {tool: test.noop}]
  - say: done
`, func(c *Config) {
		c.Tools = []tool.Tool{noop}
		c.Limits.WindowCalls, c.Limits.Window = 3, time.Hour
	})
	run := func(conv string) Result {
		res, err := f.rt.Run(context.Background(), Request{Agent: "a", Task: "x", Conversation: conv})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := run("")
	if first.Status != trace.StatusLimit || first.Conversation != first.RunID {
		t.Fatalf("a first run = %+v, want limit in a conversation of its own", first)
	}
	if res := run(first.RunID); res.Status != trace.StatusLimit || strings.Contains(res.Result, "test.noop → ok") {
		t.Errorf("its follow-up = %+v, want the window still full", res)
	}
	res := run("chat-1")
	if res.Status != trace.StatusLimit || !strings.Contains(res.Error, "conversation window: 3 tool calls") || !strings.Contains(res.Result, "test.noop → ok") {
		t.Fatalf("first run = %+v, want limit with the work so far", res)
	}
	if n := len(f.sink.named("execute_tool test.noop")); n != 6 {
		t.Errorf("%d calls ran, want the window's 3 in each of two conversations", n)
	}
	if res := run("chat-1"); res.Status != trace.StatusLimit {
		t.Errorf("follow-up = %+v, want the window still full", res)
	}
	if res := run("chat-2"); res.Status != trace.StatusLimit || strings.Count(res.Result, "test.noop → ok") != 3 {
		t.Errorf("new conversation = %+v, want three calls before its own limit", res)
	}
}

// Dispatches over the turn's agent cap wait their turn; the turn's tool
// calls are shared by the agents it dispatched.
func TestPerTurnCapsQueueAgentsAndShareToolCalls(t *testing.T) {
	f := dispatchSetup(t, map[string]string{"orch": orchFile}, `
orch:
  - calls:
      - {tool: dispatch_agent, args: {agent_id: a, mission: "m", skills: [filesystem]}}
      - {tool: dispatch_agent, args: {agent_id: b, mission: "m", skills: [filesystem]}}
  - calls: [{tool: get_agent_results}]
  - say: done
a:
  - calls: [{tool: filesystem.read_file, args: {path: tasks.txt}}, {tool: filesystem.read_file, args: {path: tasks.txt}}]
  - say: never
b:
  - say: b done
`, &recorder{})
	f.rt.cfg.Limits.TurnAgents, f.rt.cfg.Limits.TurnToolCalls = 1, 1
	f.run(t, "orch", "x")
	got := collected(t, f, 0)
	if b := got["b"]; b.Status != "completed" {
		t.Errorf("b = %+v, want completed after waiting for a", b)
	}
	if a := got["a"]; a.Status != "limit" || !strings.Contains(a.Error, "limits.turn_tool_calls") {
		t.Errorf("a = %+v, want limit by the turn's tool calls", a)
	}
	if a, b := f.sink.one(t, "invoke_agent a"), f.sink.one(t, "invoke_agent b"); overlap(a, b) {
		t.Error("a and b ran at once under limits.turn_agents 1")
	}
}

// The issue 30 cases: a parallel_streaming agent delegating 10 tasks in
// one turn, and one delegating 4 in each of 3 turns, under seed 001's
// per-turn cap of 8: every delegation runs (a cap queues, and it counts
// one model turn).
func TestTheTurnAgentCapQueuesAndCountsOneModelTurn(t *testing.T) {
	delegates := func(n int, prefix string) string {
		var b strings.Builder
		b.WriteString("  - calls:\n")
		for i := range n {
			fmt.Fprintf(&b, "      - {tool: delegate, args: {agent: w, task: %s%d}}\n", prefix, i)
		}
		return b.String()
	}
	for _, c := range []struct{ name, script string }{
		{"ten in one turn", "coord:\n" + delegates(10, "t") + strings.Repeat("  - say: all in\n", 8)},
		{"four in each of three turns", "coord:\n" + delegates(4, "a") + delegates(4, "b") + delegates(4, "c") + strings.Repeat("  - say: all in\n", 8)},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := setup(t, map[string]string{"coord": "subagents:\n  allow: [w]\n  execution: parallel_streaming\n  max_concurrent: 10\n", "w": ""},
					c.script+"w:\n  - {latency: 10ms, say: done}\n", func(cfg *Config) { cfg.Limits = orchestrator.DefaultLimits() })
				res := f.run(t, "coord", "x")
				if res.Status != trace.StatusOK {
					t.Fatalf("result = %+v", res)
				}
				for _, sp := range f.sink.named("execute_tool delegate") {
					if sp.Status != trace.StatusOK {
						t.Errorf("delegation to %v ended %s: %s", sp.Attributes[semconv.AttrTask], sp.Status, sp.Error)
					}
				}
				if n := len(f.sink.named("invoke_agent w")); n != 10 && n != 12 {
					t.Errorf("%d delegations ran", n)
				}
			})
		})
	}
}

// Seed 001's limits are the defaults of orchestrator conversations only
// (issue 29): under the binary's split (Plain for every run, the seed's
// figures for orchestrators) a Claude Code-style agent reads 60 files in
// one run and ends ok, while an orchestrator doing the same meets the
// conversation window.
func TestSeedLimitsAreTheDefaultsOfOrchestratorConversationsOnly(t *testing.T) {
	var sc strings.Builder
	for _, agent := range []string{"coder", "orch"} {
		sc.WriteString(agent + ":\n")
		for range 3 {
			sc.WriteString("  - calls:\n")
			for range 20 {
				sc.WriteString("      - {tool: filesystem.read_file, args: {path: tasks.txt}}\n")
			}
		}
		sc.WriteString("  - say: read them all\n")
	}
	f := dispatchSetup(t, map[string]string{"coder": "tools: [filesystem]\n", "orch": orchFile}, sc.String(), &recorder{})
	seed := orchestrator.DefaultLimits()
	f.rt.cfg.Limits, f.rt.cfg.OrchestratorLimits = seed.Plain(), &seed
	if res := f.run(t, "coder", "x"); res.Status != trace.StatusOK {
		t.Fatalf("plain agent = %+v, want ok", res)
	}
	res := f.run(t, "orch", "x")
	if res.Status != trace.StatusLimit || !strings.Contains(res.Error, "limits.window_calls") {
		t.Fatalf("orchestrator = %s %q, want limit by the window", res.Status, res.Error)
	}
}
