package temporal_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/demo"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// engineCases is the one table of cases both engines run
// (TestEveryCaseEndsAlikeOnBothEngines, engines_test.go): the shipped
// workflows, the orchestrator's dispatch, jobs, caps, window and breakers,
// and budgets. A new rule of the loop gets a row here.
var engineCases = append(shippedWorkflowCases(), []engineCase{
	// Delegation and the orchestrator.
	{
		name:   "a batch of delegations: one denied, one retried, one after another",
		req:    delegation.Request{Agent: "coord", Task: "go"},
		script: coordScript,
		want: expect{status: trace.StatusOK, result: "all done", lines: map[string]int{
			`chat "chat script" leaf depth=1 error attempt=0 err="transient: overloaded"`: 2,
			`execute_tool "execute_tool delegate" coord depth=0 denied`:                   1,
		}},
		check: idempotencyKeys,
	},
	{
		name:   "an orchestrator dispatches, refuses, caps a dispatch's tool calls, skips its dependents and collects",
		req:    delegation.Request{Agent: "orch", Task: "go"},
		script: orchScript,
		want: expect{status: trace.StatusOK, result: "all read", lines: map[string]int{
			`invoke_agent "invoke_agent reader" reader depth=1 limit`:              1,
			`execute_tool "execute_tool dispatch_agent" orch depth=0 skipped`:      1,
			`execute_tool "execute_tool dispatch_agent" orch depth=0 denied`:       1,
			`err="dependency cycle refused: loop depends on itself"`:               1,
			`execute_tool "execute_tool filesystem.read_file" orch depth=0 denied`: 1,
			`execute_tool "execute_tool get_agent_results" orch depth=0 ok`:        1,
			`invoke_agent "invoke_agent reader" reader: limit reason=`:             1,
		}},
	},
	{
		name:   "background delegations are collected by get_agent_results, a repeated id and a denied agent refused",
		req:    delegation.Request{Agent: "bg", Task: "go"},
		script: orchScript,
		want: expect{status: trace.StatusOK, result: "bg done", lines: map[string]int{
			`invoke_agent "invoke_agent leaf" leaf depth=1 ok`: 1,
			`execute_tool "execute_tool delegate" bg depth=0`:  3,
		}},
	},
	{
		name:   "the demo model plays an orchestrator: get_skill, three agents, one pair after the first",
		req:    delegation.Request{Agent: "orch", Task: "Read the note and summarise it"},
		config: withDemoModel,
		want:   expect{status: trace.StatusOK, has: []string{"coordinated 3 agents"}},
	},
	{
		name:   "the shipped office orchestrator with the demo model",
		req:    delegation.Request{Agent: "office-orchestrator", Task: "Send Bob the overdue tasks report and schedule a review meeting"},
		agents: map[string]string{"office-orchestrator.md": readRepo("agents/office-orchestrator.md")},
		files:  map[string]string{"tasks.md": "- [ ] quarterly report (due 2026-01-10, overdue)\n- [ ] invoices (due 2026-02-01, overdue)\n"},
		config: withDemoModel,
		want: expect{status: trace.StatusOK, has: []string{"gather:", "coordinated 3 agents"}, lines: map[string]int{
			`"invoke_agent gather"`: 1, `"invoke_agent act"`: 1, `"invoke_agent follow_up"`: 1,
			`"execute_tool get_skill"`: 1, `"execute_tool get_agent_results"`: 1,
		}},
		check: func(t *testing.T, in, on *ran) {
			for _, r := range []*ran{in, on} {
				spans, _ := r.f.store.Spans(t.Context(), r.id)
				var gather, act trace.Span
				for _, sp := range spans {
					switch sp.Name {
					case "invoke_agent gather":
						gather = sp
					case "invoke_agent act":
						act = sp
					}
				}
				if act.StartedAt.Before(gather.EndedAt) {
					t.Error("act started before gather, on which it depends, ended")
				}
			}
		},
	},
	{
		name:   "parallel_streaming gives results to the model as they land",
		req:    delegation.Request{Agent: "stream", Task: "go"},
		script: streamScript,
		want:   expect{status: trace.StatusOK, result: "all landed"},
		check: func(t *testing.T, in, _ *ran) {
			h := in.heard
			if len(h) != 3 || !strings.Contains(h[0], `"agent_id":"a"`) || !strings.Contains(h[0], "Still running: b (tooly)") ||
				!strings.Contains(h[1], `"agent_id":"c"`) || !strings.Contains(h[2], `"agent_id":"b"`) {
				t.Errorf("model was given:\n%s", strings.Join(h, "\n"))
			}
		},
	},
	{
		name:   "a dispatched agent's own timeout ends it alone and the orchestrator goes on",
		req:    delegation.Request{Agent: "orch", Task: "go"},
		script: "orch:\n  - calls: [{tool: dispatch_agent, args: {agent_id: late, mission: too slow, skills: [filesystem.read_file], timeout: 0.2}}]\n  - calls: [{tool: get_agent_results}]\n  - say: went on\nlate: [{latency: 3s, say: too late}]\n",
		want: expect{status: trace.StatusOK, result: "went on", lines: map[string]int{
			`invoke_agent "invoke_agent late" late depth=1 timeout`:                                                                 1,
			`execute_tool "execute_tool dispatch_agent" orch depth=0 timeout refused=<nil> err="agent timed out: late after 200ms"`: 1,
		}},
	},
	{
		name:   "an agent's timeout ends its invocation while its model call is under way",
		req:    delegation.Request{Agent: "slow", Task: "wait"},
		script: "slow:\n  - {say: too late, latency: 3s}\n",
		want:   expect{status: trace.StatusTimeout, err: "timed out"},
	},

	// Caps.
	{
		name:   "limits.turn_tool_calls is shared by the agents one turn dispatched",
		req:    delegation.Request{Agent: "orch", Task: "go"},
		script: turnCallsScript,
		config: func(c *delegation.Config) { c.Limits.TurnToolCalls = 1 },
		want: expect{status: trace.StatusOK, lines: map[string]int{
			`invoke_agent "invoke_agent second" second depth=1 limit`: 1, `invoke_agent "invoke_agent first" first depth=1 ok`: 1,
		}},
	},
	{
		name:   "limits.turn_agents queues a turn's background agents",
		req:    delegation.Request{Agent: "bg", Task: "go"},
		script: turnAgentsScript,
		config: func(c *delegation.Config) { c.Limits.TurnAgents = 1 },
		want:   expect{status: trace.StatusOK, result: "all three", lines: map[string]int{"queued agent=bg cap=turn_agents limit=1": 2}},
		check: func(t *testing.T, in, on *ran) {
			for _, r := range []*ran{in, on} {
				if n := overlap(invocations(t, r)); n > 2 { // bg and one leaf
					t.Errorf("%d agents at once under limits.turn_agents 1", n)
				}
			}
		},
	},
	{
		name:   "limits.orchestrator_turns ends the orchestrator with the Continue report",
		req:    delegation.Request{Agent: "orch", Task: "go"},
		script: loopLimitScript,
		config: func(c *delegation.Config) { c.Limits.OrchestratorTurns = 3 },
		want: expect{status: trace.StatusLimit, err: "3 orchestrator model calls",
			has: []string{"Done:\n", "found 3 tasks", "\nNot done:\n", "meeting (meeting)", `dispatch_agent {"agent_id":"calendar"`,
				"raise limits.orchestrator_turns"},
			lines: map[string]int{`"execute_tool dispatch_agent"`: 2}},
		check: func(t *testing.T, in, on *ran) {
			for _, r := range []*ran{in, on} {
				for _, sp := range invocations(t, r) { // it may not have begun when its dispatcher stopped
					if sp.Agent == "meeting" && sp.Status != trace.StatusCancelled {
						t.Errorf("the agent still running ended %s, want cancelled with its dispatcher", sp.Status)
					}
				}
			}
		},
		skip: func(l string) bool {
			return strings.Contains(l, `"chat script" meeting`) || strings.Contains(l, `"invoke_agent meeting"`)
		},
	},
	{
		name:   "delegation.max_concurrent queues a delegation with queued and admitted events",
		req:    delegation.Request{Agent: "coord", Task: "go"},
		script: threeLeavesScript("coord"),
		config: func(c *delegation.Config) { c.MaxConcurrent = 1 },
		want: expect{status: trace.StatusOK, lines: map[string]int{
			`execute_tool "execute_tool delegate" coord: queued cap=run limit=1`:   2,
			`execute_tool "execute_tool delegate" coord: admitted cap=run limit=1`: 2,
		}},
	},
	{
		name:   "an agent's subagents.max_concurrent queues its batch with queued and admitted events",
		req:    delegation.Request{Agent: "narrow", Task: "go"},
		script: threeLeavesScript("narrow"),
		want: expect{status: trace.StatusOK, lines: map[string]int{
			`execute_tool "execute_tool delegate" narrow: queued agent=narrow cap=max_concurrent limit=1`:   2,
			`execute_tool "execute_tool delegate" narrow: admitted agent=narrow cap=max_concurrent limit=1`: 2,
		}},
		check: func(t *testing.T, _, on *ran) { eventsAfterTheirSpansStart(t, on) },
	},
	{
		name:   "delegation.max_agents_per_run refuses the delegation over it",
		req:    delegation.Request{Agent: "coord", Task: "go"},
		script: threeLeavesScript("coord"),
		config: func(c *delegation.Config) { c.MaxAgentsPerRun = 3 },
		want: expect{status: trace.StatusOK, lines: map[string]int{
			`invoke_agent "invoke_agent leaf" leaf depth=1 ok`: 2, `refused=max_agents err="max agents per run (3) reached"`: 1,
		}},
	},
	{
		name:   "limits.window_calls stops a run with the work so far",
		req:    delegation.Request{Agent: "tooly", Task: "read"},
		script: "tooly:\n  - calls: [{tool: filesystem.read_file, args: {path: note.txt}}, {tool: filesystem.read_file, args: {path: note.txt}}]\n  - calls: [{tool: filesystem.read_file, args: {path: note.txt}}, {tool: filesystem.read_file, args: {path: note.txt}}]\n  - say: done\n",
		config: func(c *delegation.Config) { c.Limits.WindowCalls, c.Limits.Window = 3, time.Hour },
		want: expect{status: trace.StatusLimit, err: "conversation window: 3 tool calls",
			lines: map[string]int{`execute_tool "execute_tool filesystem.read_file" tooly depth=1 ok`: 0, `"execute_tool filesystem.read_file" tooly depth=0 ok`: 3}},
	},
	{
		name:   "a tool's circuit opens after consecutive failures of what it depends on",
		req:    delegation.Request{Agent: "fetcher", Task: "fetch"},
		agents: map[string]string{"fetcher.md": "---\nname: fetcher\ndescription: Fetches.\ntools: [flaky.fetch]\n---\nFetch.\n"},
		script: "fetcher:\n  - calls: [{tool: flaky.fetch}]\n  - calls: [{tool: flaky.fetch}]\n  - calls: [{tool: flaky.fetch}]\n  - say: gave up\n",
		config: func(c *delegation.Config) {
			c.Tools = append(c.Tools, downTool{})
			c.Limits.BreakerFailures, c.Limits.BreakerCooldown = 2, time.Minute
		},
		want: expect{status: trace.StatusOK, result: "gave up", lines: map[string]int{
			`err="circuit open for tool flaky.fetch after 2 consecutive failures`: 1, `err="server down"`: 2,
		}},
	},

	// Budgets.
	{
		name:   "a token budget trips over the tree: no model call after it, the next delegation refused, the report",
		req:    delegation.Request{Agent: "fruit", Task: "count the fruit", Budget: registry.Budget{Tokens: 150}},
		script: fruitScript,
		want: expect{status: trace.StatusLimit, err: "budget spent: 180 tokens used of a budget of 150", has: []string{
			"The run stopped at its budget: 180 tokens used of a budget of 150.\n",
			"Done:\n- alpha: \"count the apples\" → 7 apples\n",
			"- beta: \"count the pears\" (stopped by the budget)\n",
			"- gamma: \"count the plums\" (not started: the budget was spent)\n",
			"- fruit (the root): \"count the fruit\" (stopped by the budget)\n",
			"Estimate to finish: about 240 more tokens (3 not done at the 80 tokens a finished agent invocation took on average).\n",
			"agentry run --continue RUN --budget-tokens 420\n",
		}, lines: map[string]int{`chat "chat script"`: 3, `limit refused=budget`: 1, `"execute_tool filesystem.read_file" beta depth=1 ok`: 1}},
	},
	{
		name:   "a run that finishes within its budget keeps its answer",
		req:    delegation.Request{Agent: "fruit", Task: "count the fruit", Budget: registry.Budget{Tokens: 1000, WallClock: time.Minute}},
		script: fruitScript,
		want:   expect{status: trace.StatusOK, result: "all counted"},
	},
	{
		name:   "a USD budget counts priced calls",
		req:    delegation.Request{Agent: "fruit", Task: "count the fruit", Budget: registry.Budget{USD: 0.10}},
		script: fruitScript,
		config: func(c *delegation.Config) { c.Prices = flatPrice{} },
		want:   expect{status: trace.StatusLimit, has: []string{"The run stopped at its budget: $0.1400 used of a budget of $0.10.", "Used: 140 tokens, $0.1400,"}},
		check: func(t *testing.T, in, on *ran) {
			for _, r := range []*ran{in, on} {
				if run, err := r.f.store.Run(t.Context(), r.id); err != nil || run.CostUSD < 0.1399 || run.CostUSD > 0.1401 {
					t.Errorf("run cost %v (%v), want 0.14", run.CostUSD, err)
				}
			}
		},
	},
	{
		name:   "a wall clock budget stops new model calls",
		req:    delegation.Request{Agent: "tooly", Task: "go", Budget: registry.Budget{WallClock: 3 * time.Second}},
		script: "tooly:\n  - {latency: 4s, calls: [{tool: filesystem.read_file, args: {path: note.txt}}]}\n  - say: never\n",
		want: expect{status: trace.StatusLimit, has: []string{"The run stopped at its budget: the wall clock budget of 3s ran out."},
			lines: map[string]int{`chat "chat script"`: 1}},
	},
	{
		name:   "delegation.token_budget stops the run",
		req:    delegation.Request{Agent: "fruit", Task: "count the fruit"},
		script: fruitScript,
		config: func(c *delegation.Config) { c.TokenBudget = 100 },
		want:   expect{status: trace.StatusError, err: "token budget exceeded: 140 tokens used of 100"},
	},

	// Workflows under the run's caps and budget.
	{
		name: "a workflow's agents count under delegation.max_concurrent", flowYAML: parallelFourYAML, script: parallelFourScript,
		inputs: map[string]any{"topic": "caps"},
		config: func(c *delegation.Config) { c.MaxConcurrent = 2 },
		want:   expect{status: "ok", lines: map[string]int{`invoke_agent "invoke_agent a`: 4}},
		check: func(t *testing.T, in, on *ran) {
			for _, r := range []*ran{in, on} {
				if n := overlap(invocations(t, r)); n > 2 {
					t.Errorf("%d agents at once, want at most 2", n)
				}
			}
		},
	},
	{
		name: "a workflow's agents count under delegation.max_agents_per_run", flowYAML: parallelFourYAML, script: parallelFourScript,
		inputs: map[string]any{"topic": "caps"},
		config: func(c *delegation.Config) { c.MaxAgentsPerRun = 2 },
		want:   expect{status: "error", lines: map[string]int{`invoke_agent "invoke_agent a`: 2}},
		// Which two of the four parallel agents get through is a race
		// within each engine: their names and outputs are left out.
		skip: func(l string) bool {
			return strings.Contains(l, " a1") || strings.Contains(l, " a2") || strings.Contains(l, " a3") || strings.Contains(l, " a4")
		},
		blur: regexp.MustCompile(`a\d: agent a\d:`),
	},
	{
		name: "delegation.token_budget counts a workflow's agents", flowYAML: spendYAML, script: spendScript,
		inputs: map[string]any{"topic": "tokens"},
		config: func(c *delegation.Config) { c.TokenBudget = 150 },
		want:   expect{status: "error", has: []string{"three: token budget exceeded: 200 tokens used of 150"}},
	},
}...)

// shippedWorkflowCases are two rows per workflow in workflows/, on its
// inputs from workflows/scripts: one with its script, one with the demo
// model (whose answers meet the workflows' validation rules).
func shippedWorkflowCases() []engineCase {
	var rows []engineCase
	for _, name := range shippedWorkflows() {
		want := expect{status: "ok", has: []string{"- Status: COMPLETE"}}
		rows = append(rows,
			engineCase{name: "the shipped workflow " + name, flow: name, want: want, check: workflowTree},
			engineCase{name: "the shipped workflow " + name + " with the demo model", flow: name, config: withDemoModel, want: want})
	}
	return rows
}

// workflowTree: a workflow run has outputs, and its spans are one
// invoke_workflow, its steps, and the agents below them.
func workflowTree(t *testing.T, in, on *ran) {
	for _, r := range []*ran{in, on} {
		if strings.HasPrefix(r.result, "{}") || strings.HasPrefix(r.result, "null") {
			t.Errorf("no outputs:\n%s", r.result)
		}
		spans, _ := r.f.store.Spans(t.Context(), r.id)
		byID := map[string]trace.Span{}
		for _, sp := range spans {
			byID[sp.ID] = sp
		}
		n := map[trace.Kind]int{}
		for _, sp := range spans {
			n[sp.Kind]++
			parent := byID[sp.ParentID].Kind
			switch {
			case sp.Kind == trace.KindInvokeWorkflow && sp.ParentID != "",
				sp.Kind == trace.KindWorkflowStep && (parent != trace.KindInvokeWorkflow || sp.Attributes["step_id"] == nil || sp.Attributes["step_status"] == nil),
				sp.Kind == trace.KindInvokeAgent && parent != trace.KindWorkflowStep:
				t.Errorf("%s span %q under a %s", sp.Kind, sp.Name, parent)
			}
		}
		if n[trace.KindInvokeWorkflow] != 1 || n[trace.KindWorkflowStep] == 0 || n[trace.KindInvokeAgent] == 0 {
			t.Errorf("spans: %v", n)
		}
	}
}

func withDemoModel(c *delegation.Config) {
	c.Models = model.Providers{"script": func(string) (model.LLM, error) { return &demo.Model{}, nil }}
}

// readRepo reads a file of the repository.
func readRepo(name string) string {
	_, here, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", name))
	if err != nil {
		panic(err)
	}
	return string(b)
}

// idempotencyKeys: a tool call has no key in-process and run/invocation/call
// on Temporal, the key on its span too.
func idempotencyKeys(t *testing.T, in, on *ran) {
	if k := in.f.keys.keys; len(k) != 1 || k[0] != "" {
		t.Errorf("in-process idempotency keys = %q, want one empty key", k)
	}
	k := on.f.keys.keys
	if len(k) != 1 || !strings.HasPrefix(k[0], on.id+"/") || strings.Count(k[0], "/") != 2 {
		t.Fatalf("temporal idempotency keys = %q, want one run/invocation/call key", k)
	}
	spans, _ := on.f.store.Spans(t.Context(), on.id)
	for _, sp := range spans {
		if sp.Name == "execute_tool filesystem.read_file" && sp.Attributes[delegation.AttrIdempotencyKey] != k[0] {
			t.Errorf("the tool's span has idempotency_key %v, want the tool's %q", sp.Attributes[delegation.AttrIdempotencyKey], k[0])
		}
	}
}

// eventsAfterTheirSpansStart: a span waiting for a slot is open from when it began to wait.
func eventsAfterTheirSpansStart(t *testing.T, r *ran) {
	spans, _ := r.f.store.Spans(t.Context(), r.id)
	for _, sp := range spans {
		for _, ev := range sp.Events {
			if ev.Time.Before(sp.StartedAt) {
				t.Errorf("%s event at %v before its span started (%v)", ev.Name, ev.Time, sp.StartedAt)
			}
		}
	}
}

func invocations(t *testing.T, r *ran) []trace.Span {
	spans, _ := r.f.store.Spans(t.Context(), r.id)
	return slices.DeleteFunc(spans, func(sp trace.Span) bool { return sp.Kind != trace.KindInvokeAgent })
}

// downTool is a tool whose server is down.
type downTool struct{}

func (downTool) Spec() model.Tool {
	return model.Tool{Name: "flaky.fetch", Description: "Fetches.", Parameters: json.RawMessage(`{"type":"object"}`)}
}
func (downTool) Call(context.Context, json.RawMessage) (string, error) {
	return "", tool.MarkUnavailable(errors.New("server down"))
}

// flatPrice prices every model at one dollar per thousand tokens.
type flatPrice struct{}

func (flatPrice) Cost(spec string, in, out, cached int64) (float64, bool) {
	return float64(in+out) / 1000, true
}

func threeLeavesScript(agent string) string {
	// The latency keeps the first leaf working until the others have asked
	// for their slots: on Temporal each call's checks are a step of its own.
	return agent + `:
  - calls:
      - {tool: delegate, args: {agent: leaf, task: one}}
      - {tool: delegate, args: {agent: leaf, task: two}}
      - {tool: delegate, args: {agent: leaf, task: three}}
  - say: all done
leaf:
  - {say: leaf answer, latency: 300ms}
`
}

// streamScript: stream starts a fast leaf and a slow tooly as one
// parallel_streaming turn; the leaf's result lands first (tooly still
// running), then a follow-up leaf is streamed and lands, then an early
// answer while tooly runs gets tooly's result for one more turn.
const streamScript = `stream:
  - calls:
      - {tool: delegate, args: {agent: leaf, task: fast, id: a}}
      - {tool: delegate, args: {agent: tooly, task: slow, id: b}}
  - calls: [{tool: delegate, args: {agent: leaf, task: follow up, id: c}}]
  - say: early
  - say: all landed
leaf:
  - say: leaf answer
  - say: leaf again
tooly:
  - {say: read slowly, latency: 1500ms}
`

// turnCallsScript: with limits.turn_tool_calls 1 the first agent makes its
// call and the second, which waits for it, is stopped with status limit.
const turnCallsScript = `orch:
  - calls:
      - {tool: dispatch_agent, args: {agent_id: first, mission: read, skills: [filesystem.read_file]}}
      - {tool: dispatch_agent, args: {agent_id: second, mission: read again, skills: [filesystem.read_file], depends_on: [first]}}
  - calls: [{tool: get_agent_results}]
  - say: both ran
first:
  - calls: [{tool: filesystem.read_file, args: {path: note.txt}}]
  - say: read
second:
  - calls: [{tool: filesystem.read_file, args: {path: note.txt}}]
  - say: read again
`

// turnAgentsScript: three background delegations of one turn.
const turnAgentsScript = `bg:
  - calls:
      - {tool: delegate, args: {agent: leaf, task: one, background: true, id: one}}
      - {tool: delegate, args: {agent: leaf, task: two, background: true, id: two}}
      - {tool: delegate, args: {agent: leaf, task: three, background: true, id: three}}
  - calls: [{tool: get_agent_results}]
  - say: all three
leaf:
  - {latency: 300ms, say: leaf answer}
`

// loopLimitScript: after limits.orchestrator_turns model calls, the last
// one's dispatch is not run, and the agent still running is stopped.
const loopLimitScript = `orch:
  - calls:
      - {tool: dispatch_agent, args: {agent_id: quick, mission: search, skills: [filesystem.read_file]}}
      - {tool: dispatch_agent, args: {agent_id: meeting, mission: book it, skills: [filesystem.read_file]}}
  - calls: [{tool: get_agent_results, args: {agent_ids: [quick]}}]
  - calls: [{tool: dispatch_agent, args: {agent_id: calendar, mission: add it, skills: [filesystem.read_file]}}]
  - say: never reached
quick: [{say: found 3 tasks}]
meeting: [{latency: 3s, say: booked}]
`

// parallelFourYAML is a workflow whose one step runs four agents in parallel, each
// answering after a second, so overlapping invocations show in their spans.
const (
	parallelFourYAML = `workflow: {name: four, description: Four agents at once}
agents:
  a1: {prompt: "One on {{inputs.topic}}"}
  a2: {prompt: "Two on {{inputs.topic}}"}
  a3: {prompt: "Three on {{inputs.topic}}"}
  a4: {prompt: "Four on {{inputs.topic}}"}
inputs:
  - {name: topic, type: string, required: true}
steps:
  - id: all
    type: parallel
    parallel:
      - {agent: a1, output_key: one}
      - {agent: a2, output_key: two}
      - {agent: a3, output_key: three}
      - {agent: a4, output_key: four}
`
	parallelFourScript = `a1: [{say: one done, latency: 1s}]
a2: [{say: two done, latency: 1s}]
a3: [{say: three done, latency: 1s}]
a4: [{say: four done, latency: 1s}]
`
)

// spendYAML: three agents in a row, each using 100 tokens; the last would
// take long, so a run still going when it starts shows.
const (
	spendYAML = `workflow: {name: spend, description: Three agents in a row}
agents:
  b1: {prompt: "First on {{inputs.topic}}"}
  b2: {prompt: "Then {{steps.one.output}}"}
  b3: {prompt: "Last {{steps.two.output}}"}
inputs:
  - {name: topic, type: string, required: true}
steps:
  - {id: one, agent: b1}
  - {id: two, agent: b2}
  - {id: three, agent: b3}
`
	spendScript = `b1: [{say: one, tokens: {input: 60, output: 40}}]
b2: [{say: two, tokens: {input: 60, output: 40}}]
b3: [{say: three, latency: 20s, tokens: {input: 60, output: 40}}]
`
)

// orchScript: orch dispatches a reader under max_tool_calls 1 (which it trips), a writer
// that depends on it (so is skipped), one with a skill it lacks and one on
// a cycle (both refused), calls its own tool (refused), collects the reader
// and an unknown id, and answers early, so the writer's result comes to it
// unasked for one more turn.
const orchScript = `orch:
  - calls:
      - {tool: dispatch_agent, args: {agent_id: reader, mission: read the note, skills: [filesystem.read_file], max_tool_calls: 1}}
      - {tool: dispatch_agent, args: {agent_id: writer, mission: sum up, skills: [filesystem.read_file], depends_on: [reader]}}
      - {tool: dispatch_agent, args: {agent_id: shell, mission: run, skills: [shell.run]}}
      - {tool: dispatch_agent, args: {agent_id: loop, mission: spin, skills: [filesystem.read_file], depends_on: [loop]}}
      - {tool: filesystem.read_file, args: {path: note.txt}}
  - calls: [{tool: get_agent_results, args: {agent_ids: [reader, nobody]}}]
  - say: done early
  - say: all read
reader:
  - calls: [{tool: filesystem.read_file, args: {path: note.txt}}, {tool: filesystem.read_file, args: {path: note.txt}}]
writer:
  - say: summed
bg:
  - calls:
      - {tool: delegate, args: {agent: leaf, task: first, background: true, id: one}}
      - {tool: delegate, args: {agent: leaf, task: again, background: true, id: one}}
      - {tool: delegate, args: {agent: secret, task: no, background: true}}
  - calls: [{tool: get_agent_results}]
  - say: bg done
leaf:
  - say: leaf answer
`

// fruitScript (as delegation's budget test): coord's first turn and alpha
// spend 140 tokens, beta's first turn takes a 150-token budget over while
// its tool call still runs; gamma is never started.
const fruitScript = `
fruit:
  - tokens: {input: 50, output: 10}
    calls:
      - {tool: delegate, args: {agent: alpha, task: "count the apples"}}
      - {tool: delegate, args: {agent: beta, task: "count the pears"}}
      - {tool: delegate, args: {agent: gamma, task: "count the plums"}}
  - say: "all counted"
alpha:
  - {say: "7 apples", tokens: {input: 60, output: 20}}
beta:
  - tokens: {input: 30, output: 10}
    calls:
      - {tool: filesystem.read_file, args: {path: note.txt}}
  - say: "5 pears"
gamma:
  - say: "2 plums"
`

// overlap is the most spans that were open at one moment.
func overlap(spans []trace.Span) int {
	type edge struct {
		at time.Time
		d  int
	}
	var es []edge
	for _, sp := range spans {
		es = append(es, edge{sp.StartedAt, 1}, edge{sp.EndedAt, -1})
	}
	slices.SortFunc(es, func(a, b edge) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.d - b.d // an end at the same moment as a start comes first
	})
	n, most := 0, 0
	for _, e := range es {
		n += e.d
		most = max(most, n)
	}
	return most
}
