package temporal_test

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/demo"
	"github.com/agentry/agentry/trace"
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

// compareRuns runs req in-process and on Temporal and compares result and
// trace shape.
func compareRuns(t *testing.T, newF func() *fixture, req delegation.Request) (*fixture, delegation.Result) {
	t.Helper()
	return compareRunsBut(t, newF, req, func(string) bool { return false })
}

// durations are the times a result may quote (a report quoting
// get_agent_results), which differ between engines.
var durations = regexp.MustCompile(`"duration_ms":[0-9]+`)

func untimed(s string) string { return durations.ReplaceAllString(s, `"duration_ms":N`) }

// compareRunsBut is compareRuns with the trace lines skip names left out
// of the comparison.
func compareRunsBut(t *testing.T, newF func() *fixture, req delegation.Request, skip func(line string) bool) (*fixture, delegation.Result) {
	t.Helper()
	in := newF()
	want, err := in.rt.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	tf := newF()
	got := tf.runTemporal(t, req)
	if got.Status != want.Status || untimed(got.Result) != untimed(want.Result) || got.Error != want.Error {
		t.Errorf("temporal run = %+v\nin-process run = %+v", got, want)
	}
	ws, gs := slices.DeleteFunc(shape(t, in, want.RunID), skip), slices.DeleteFunc(shape(t, tf, got.RunID), skip)
	if strings.Join(ws, "\n") != strings.Join(gs, "\n") {
		t.Errorf("temporal trace:\n%s\n\nin-process trace:\n%s", strings.Join(gs, "\n"), strings.Join(ws, "\n"))
	}
	return tf, got
}

// An orchestrator runs on Temporal as in-process: dispatches with their
// checks, refusals, max_tool_calls, depends_on and skips, get_agent_results,
// and results given unasked after an early answer.
func TestAnOrchestratorOnTemporalRecordsTheInProcessTrace(t *testing.T) {
	tf, got := compareRuns(t, func() *fixture { return newFixture(t, orchScript) }, delegation.Request{Agent: "orch", Task: "go"})
	if got.Status != trace.StatusOK || got.Result != "all read" {
		t.Fatalf("run = %+v", got)
	}
	lines := strings.Join(shape(t, tf, got.RunID), "\n")
	for _, want := range []string{
		`invoke_agent "invoke_agent reader" reader depth=1 limit`,
		`execute_tool "execute_tool dispatch_agent" orch depth=0 skipped`,
		`execute_tool "execute_tool dispatch_agent" orch depth=0 denied`,
		`execute_tool "execute_tool filesystem.read_file" orch depth=0 denied`,
		`execute_tool "execute_tool get_agent_results" orch depth=0 ok`,
	} {
		if !strings.Contains(lines, want) {
			t.Errorf("no %s in the trace:\n%s", want, lines)
		}
	}
}

// A delegate call with background: true runs on Temporal as in-process:
// started at once, collected by get_agent_results; a second call with the
// same id and one to an agent it may not use are refused.
func TestABackgroundDelegationOnTemporalRecordsTheInProcessTrace(t *testing.T) {
	tf, got := compareRuns(t, func() *fixture { return newFixture(t, orchScript) }, delegation.Request{Agent: "bg", Task: "go"})
	if got.Status != trace.StatusOK || got.Result != "bg done" {
		t.Fatalf("run = %+v", got)
	}
	lines := strings.Join(shape(t, tf, got.RunID), "\n")
	if !strings.Contains(lines, `invoke_agent "invoke_agent leaf" leaf depth=1 ok`) || strings.Count(lines, `execute_tool "execute_tool delegate" bg depth=0`) != 3 {
		t.Errorf("trace:\n%s", lines)
	}
}

// The demo model's orchestrator (get_skill, three agents, one pair after
// the first) gives the in-process result and trace on Temporal.
func TestTheDemoOrchestratorRunsOnTemporal(t *testing.T) {
	newF := func() *fixture {
		return newFixture(t, "orch: [{say: x}]\n", func(c *delegation.Config) {
			c.Models = model.Providers{"script": func(string) (model.LLM, error) { return &demo.Model{}, nil }}
		})
	}
	_, got := compareRuns(t, newF, delegation.Request{Agent: "orch", Task: "Read the note and summarise it"})
	if got.Status != trace.StatusOK || !strings.Contains(got.Result, "coordinated 3 agents") {
		t.Fatalf("run = %+v", got)
	}
}

// limits.turn_tool_calls is counted over the agents one orchestrator
// dispatched, as in-process: with a cap of 1 the first agent makes its
// call and the second, which waits for it, is stopped with status limit.
func TestTheTurnToolCallCapOnTemporal(t *testing.T) {
	const sc = `orch:
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
	newF := func() *fixture {
		return newFixture(t, sc, func(c *delegation.Config) { c.Limits.TurnToolCalls = 1 })
	}
	tf, got := compareRuns(t, newF, delegation.Request{Agent: "orch", Task: "go"})
	lines := strings.Join(shape(t, tf, got.RunID), "\n")
	if !strings.Contains(lines, `invoke_agent "invoke_agent second" second depth=1 limit`) || !strings.Contains(lines, `invoke_agent "invoke_agent first" first depth=1 ok`) {
		t.Errorf("trace:\n%s", lines)
	}
}

// limits.turn_agents queues on Temporal as in-process: three background
// delegations of one turn under a cap of one all run, the later ones with
// the queued and admitted events of the cap on their spans.
func TestTheTurnAgentCapQueuesOnTemporal(t *testing.T) {
	const sc = `bg:
  - calls:
      - {tool: delegate, args: {agent: leaf, task: one, background: true, id: one}}
      - {tool: delegate, args: {agent: leaf, task: two, background: true, id: two}}
      - {tool: delegate, args: {agent: leaf, task: three, background: true, id: three}}
  - calls: [{tool: get_agent_results}]
  - say: all three
leaf:
  - {latency: 300ms, say: leaf answer}
`
	newF := func() *fixture {
		return newFixture(t, sc, func(c *delegation.Config) { c.Limits.TurnAgents = 1 })
	}
	gs := compareEvents(t, newF, delegation.Request{Agent: "bg", Task: "go"})
	if n := strings.Count(strings.Join(gs, "\n"), "queued agent=bg cap=turn_agents limit=1"); n != 2 {
		t.Errorf("%d queued events for limits.turn_agents, want 2:\n%s", n, strings.Join(gs, "\n"))
	}
}

// An orchestrator's loop limit ends on Temporal as in-process: after
// limits.orchestrator_turns model calls, the last one's dispatch not run,
// with the same "Continue?" report and the agent still running stopped.
func TestTheOrchestratorLoopLimitOnTemporal(t *testing.T) {
	const sc = `orch:
  - calls:
      - {tool: dispatch_agent, args: {agent_id: quick, mission: search, skills: [filesystem.read_file]}}
      - {tool: dispatch_agent, args: {agent_id: meeting, mission: book it, skills: [filesystem.read_file]}}
  - calls: [{tool: get_agent_results, args: {agent_ids: [quick]}}]
  - calls: [{tool: dispatch_agent, args: {agent_id: calendar, mission: add it, skills: [filesystem.read_file]}}]
  - say: never reached
quick: [{say: found 3 tasks}]
meeting: [{latency: 3s, say: booked}]
`
	newF := func() *fixture {
		return newFixture(t, sc, func(c *delegation.Config) { c.Limits.OrchestratorTurns = 3 })
	}
	// meeting's own spans are left out: in-process, whether its invocation
	// began before its dispatcher stopped is a race of goroutines, and on
	// the test server its model call, cut short, stays open (the server
	// does not deliver an activity's cancellation; a real one does, by
	// heartbeat). Its dispatch_agent span, cancelled, is compared.
	_, got := compareRunsBut(t, newF, delegation.Request{Agent: "orch", Task: "go"}, func(l string) bool {
		return strings.HasPrefix(l, `chat "chat script" meeting`) || strings.HasPrefix(l, `invoke_agent "invoke_agent meeting"`)
	})
	if got.Status != trace.StatusLimit || !strings.Contains(got.Error, "limits.orchestrator_turns") || !strings.Contains(got.Result, "meeting (meeting)") ||
		!strings.Contains(got.Result, `dispatch_agent {"agent_id":"calendar"`) {
		t.Fatalf("run = %+v", got)
	}
}

// A dispatched agent's own timeout ends it alone on Temporal as
// in-process: timeout in get_agent_results, and the orchestrator goes on.
func TestADispatchedAgentsTimeoutOnTemporal(t *testing.T) {
	const sc = `orch:
  - calls: [{tool: dispatch_agent, args: {agent_id: late, mission: too slow, skills: [filesystem.read_file], timeout: 0.2}}]
  - calls: [{tool: get_agent_results}]
  - say: went on
late: [{latency: 3s, say: too late}]
`
	want, err := newFixture(t, sc).rt.Run(context.Background(), delegation.Request{Agent: "orch", Task: "go"})
	if err != nil || want.Status != trace.StatusOK {
		t.Fatalf("in-process run = %+v, %v", want, err)
	}
	tf := newFixture(t, sc)
	got := tf.runTemporal(t, delegation.Request{Agent: "orch", Task: "go"})
	if got.Status != want.Status || got.Result != want.Result {
		t.Fatalf("temporal run = %+v, want %+v", got, want)
	}
	// The timed-out model call's chat span is left out: the test server
	// does not deliver the activity's cancellation while it sleeps.
	lines := strings.Join(shape(t, tf, got.RunID), "\n")
	for _, want := range []string{`invoke_agent "invoke_agent late" late depth=1 timeout`,
		`execute_tool "execute_tool dispatch_agent" orch depth=0 timeout refused=<nil> err="agent timed out: late after 200ms"`} {
		if !strings.Contains(lines, want) {
			t.Errorf("no %s in the trace:\n%s", want, lines)
		}
	}
}
