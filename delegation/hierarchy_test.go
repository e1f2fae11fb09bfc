package delegation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/trace"
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
			return "", errors.New("server down")
		}
		return "fine", nil
	})
	f := setup(t, map[string]string{"a": ""}, "a:\n  - calls: [{tool: flaky.fetch}]\n  - say: done\n", func(c *Config) {
		c.Tools = []tool.Tool{flaky}
		c.Now = clock.Now
		c.Limits.BreakerFailures, c.Limits.BreakerCooldown = 2, time.Minute
	})
	for range 3 {
		f.run(t, "a", "x")
	}
	sps := f.sink.named("execute_tool flaky.fetch")
	if calls != 2 || sps[2].Attributes[AttrCircuit] != CircuitOpen || !strings.Contains(sps[2].Error, "circuit open for tool flaky.fetch after 2 consecutive failures") {
		t.Fatalf("calls = %d, third span = %v %q", calls, sps[2].Attributes[AttrCircuit], sps[2].Error)
	}
	if sps[0].Attributes[AttrCircuit] != CircuitClosed || sps[2].Attributes[AttrCircuitServer] != CircuitOpen {
		t.Errorf("first span circuit %v, third span's server circuit %v; want closed and open", sps[0].Attributes[AttrCircuit], sps[2].Attributes[AttrCircuitServer])
	}
	clock.add(time.Minute)
	failing = false
	f.run(t, "a", "x")
	f.run(t, "a", "x")
	sps = f.sink.named("execute_tool flaky.fetch")
	if calls != 4 || sps[3].Attributes[AttrCircuit] != CircuitHalfOpen || sps[4].Attributes[AttrCircuit] != CircuitClosed {
		t.Fatalf("calls = %d, after the cooldown circuits %v then %v; want half_open then closed", calls, sps[3].Attributes[AttrCircuit], sps[4].Attributes[AttrCircuit])
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

func TestPerTurnCapsStopDispatchesOverTheCap(t *testing.T) {
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
`, &recorder{})
	f.rt.cfg.Limits.TurnAgents, f.rt.cfg.Limits.TurnToolCalls = 1, 1
	f.run(t, "orch", "x")
	var refused trace.Span
	for _, sp := range f.sink.named("execute_tool dispatch_agent") {
		if sp.Attributes[trace.AttrTargetAgent] == "b" {
			refused = sp
		}
	}
	if refused.Status != trace.StatusLimit || !strings.Contains(refused.Error, "limits.turn_agents") {
		t.Errorf("b's dispatch = %s %q, want limit", refused.Status, refused.Error)
	}
	if a := collected(t, f, 0)["a"]; a.Status != "limit" || !strings.Contains(a.Error, "limits.turn_tool_calls") {
		t.Errorf("a = %+v, want limit by the turn's tool calls", a)
	}
}

func TestStaleConversationWindowsAreDropped(t *testing.T) {
	l := Limits{WindowCalls: 5, Window: time.Minute}
	var w windows
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range minSweep {
		w.take(l, fmt.Sprint("old-", i), 1, start)
	}
	w.take(l, "new", 1, start.Add(2*time.Minute))
	if len(w.m) != 1 {
		t.Fatalf("%d windows kept, want only the live one", len(w.m))
	}
}
