package loop

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
)

// The machine is tested as raft is: feed it events, assert the actions it
// returns. Nothing here runs a goroutine or reads a clock.

// say renders actions compactly: "model 0", "tool 1", "run 0", "end ok".
func say(acts []Action) string {
	var out []string
	for _, a := range acts {
		var s string
		switch a.Kind {
		case ActModel:
			s = fmt.Sprintf("model %d", a.Attempt)
		case ActSleep:
			s = fmt.Sprintf("sleep %s", a.Wait)
		case ActBudget:
			s = "budget"
		case ActCalls:
			s = fmt.Sprintf("calls %d", a.N)
		case ActTool:
			s = fmt.Sprintf("tool %d", a.Index)
		case ActAsync:
			s = fmt.Sprintf("async %v", a.Indexes)
		case ActOpen:
			s = fmt.Sprintf("open %d", a.Index)
		case ActOpenCall:
			s = fmt.Sprintf("open call %d", a.Index)
		case ActRefuse:
			s = fmt.Sprintf("refuse %d %s %s", a.Item, a.Refused, a.Outcome.Status)
		case ActCheck:
			s = fmt.Sprintf("check %d", a.Item)
		case ActAdmit:
			s = fmt.Sprintf("admit %d", a.Item)
		case ActQueued:
			s = fmt.Sprintf("queued %d %s", a.Item, a.Cap)
		case ActAdmitted:
			s = fmt.Sprintf("admitted %d %s", a.Item, a.Cap)
		case ActSlot:
			s = fmt.Sprintf("slot %d", a.Item)
		case ActRun:
			s = fmt.Sprintf("run %d", a.Item)
		case ActFinish:
			s = fmt.Sprintf("finish %d %s", a.Item, a.Outcome.Status)
		case ActRelease:
			s = "release"
		case ActAcquire:
			s = "acquire"
		case ActCollect:
			s = fmt.Sprintf("collect %d", a.Index)
		case ActLimit:
			s = "limit"
		case ActStopJobs:
			s = "stop jobs"
		case ActEnd:
			s = "end " + string(a.Outcome.Status)
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

func expect(t *testing.T, acts []Action, want string) []Action {
	t.Helper()
	if got := say(acts); got != want {
		t.Fatalf("actions = %q\nwant      %q", got, want)
	}
	return acts
}

func call(id, name, args string) model.ToolCall {
	return model.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)}
}

func delegate(id, args string) model.ToolCall { return call(id, DelegateTool, args) }

func reply(text string, calls ...model.ToolCall) Event {
	return Event{Kind: EvModel, Resp: &model.Response{Text: text, ToolCalls: calls}}
}

func done(item int, status trace.Status, text string) Event {
	return Event{Kind: EvDone, Item: item, Outcome: Outcome{Status: status, Result: text}, Text: text}
}

func plainSpec() Spec { return Spec{Agent: "a", MaxTurns: 5, Attempts: 2, MaxConcurrent: 5} }

func start(spec Spec) (*Machine, []Action) {
	m := New(spec, []model.Message{{Role: model.RoleUser, Content: "go"}})
	return m, m.Start()
}

func TestATextAnswerEndsTheInvocation(t *testing.T) {
	m, acts := start(plainSpec())
	expect(t, acts, "model 0")
	acts = expect(t, m.Step(reply("hello")), "end ok")
	if acts[0].Outcome.Result != "hello" {
		t.Fatalf("end = %+v", acts[0])
	}
}

func TestAnEmptyAnswerIsAnError(t *testing.T) {
	m, _ := start(plainSpec())
	acts := expect(t, m.Step(reply("  ")), "end error")
	if acts[0].Outcome.Error != ErrEmptyAnswer.Error() {
		t.Fatalf("end = %+v", acts[0])
	}
}

func TestToolCallsRunInOrderAndTheirResultsGoBackToTheModel(t *testing.T) {
	m, _ := start(plainSpec())
	expect(t, m.Step(reply("", call("c1", "fs.read", `{}`), call("c2", "fs.grep", `{}`))), "tool 0")
	expect(t, m.Step(Event{Kind: EvTool, Index: 0, Text: "one"}), "tool 1")
	expect(t, m.Step(Event{Kind: EvTool, Index: 1, Text: "two"}), "model 0")
	conv := m.Conv()
	if len(conv) != 4 || conv[2].Content != "one" || conv[3].ToolCallID != "c2" || conv[3].Content != "two" {
		t.Fatalf("conversation = %+v", conv)
	}
}

func TestATransientFailureIsRetriedAfterItsWaitUntilAttemptsRunOut(t *testing.T) {
	m, acts := start(plainSpec())
	if !acts[0].Retry {
		t.Fatal("the first of two attempts does not say a retry follows")
	}
	failed := Event{Kind: EvModelFailed, Transient: true, Wait: 2 * time.Second, Outcome: Outcome{Status: trace.StatusError, Error: "model x: 429"}}
	expect(t, m.Step(failed), "sleep 2s")
	acts = expect(t, m.Step(Event{Kind: EvWoke}), "model 1")
	if acts[0].Retry {
		t.Fatal("the last attempt says a retry follows")
	}
	acts = expect(t, m.Step(failed), "end error")
	if acts[0].Outcome.Error != "model x: 429" {
		t.Fatalf("end = %+v", acts[0])
	}
}

func TestNoModelCallStartsOnceTheBudgetIsSpent(t *testing.T) {
	spec := plainSpec()
	spec.AskBudget = true
	m, acts := start(spec)
	expect(t, acts, "budget")
	expect(t, m.Step(Event{Kind: EvBudget}), "model 0")
	expect(t, m.Step(reply("", call("c", "t", `{}`))), "tool 0")
	expect(t, m.Step(Event{Kind: EvTool, Index: 0}), "budget")
	acts = expect(t, m.Step(Event{Kind: EvBudget, Why: "100 tokens used of a budget of 90"}), "end limit")
	if acts[0].Outcome.Error != "budget spent: 100 tokens used of a budget of 90" {
		t.Fatalf("end = %+v", acts[0])
	}
}

func TestAParallelBatchAdmitsInCallOrderAndRunsAtOnce(t *testing.T) {
	m, _ := start(plainSpec())
	turn := reply("", delegate("d1", `{"agent":"x","task":"one"}`), delegate("d2", `{"agent":"y","task":"two"}`))
	expect(t, m.Step(turn), "release, open 0, open 1, admit 0")
	expect(t, m.Step(Event{Kind: EvSlot, Item: 0}), "run 0, admit 1")
	expect(t, m.Step(Event{Kind: EvSlot, Item: 1}), "run 1")
	expect(t, m.Step(done(1, trace.StatusOK, "r2")), "")
	expect(t, m.Step(done(0, trace.StatusOK, "r1")), "acquire")
	expect(t, m.Step(Event{Kind: EvSlotBack}), "model 0")
	if c := m.Conv(); c[2].Content != "r1" || c[3].Content != "r2" {
		t.Fatalf("results in the conversation = %+v", c[2:])
	}
}

func TestASequentialBatchRunsOneCallAfterTheOther(t *testing.T) {
	spec := plainSpec()
	spec.Execution = "sequential"
	m, _ := start(spec)
	expect(t, m.Step(reply("", delegate("d1", `{"agent":"x","task":"one"}`), delegate("d2", `{"agent":"y","task":"two"}`))),
		"release, open 0, open 1, admit 0")
	expect(t, m.Step(Event{Kind: EvSlot, Item: 0}), "run 0")
	expect(t, m.Step(done(0, trace.StatusOK, "r1")), "admit 1")
}

func TestCallsOverTheAgentsMaxConcurrentWaitInLine(t *testing.T) {
	spec := plainSpec()
	spec.MaxConcurrent = 1
	m, _ := start(spec)
	expect(t, m.Step(reply("", delegate("d1", `{"agent":"x","task":"one"}`), delegate("d2", `{"agent":"y","task":"two"}`))),
		"release, open 0, open 1, admit 0")
	expect(t, m.Step(Event{Kind: EvSlot, Item: 0}), "run 0, check 1")
	acts := expect(t, m.Step(Event{Kind: EvChecked, Item: 1}), "queued 1 max_concurrent")
	if acts[0].Limit != 1 {
		t.Fatalf("queued = %+v", acts[0])
	}
	expect(t, m.Step(done(0, trace.StatusOK, "r1")), "admitted 1 max_concurrent, slot 1")
	expect(t, m.Step(Event{Kind: EvSlot, Item: 1}), "run 1")
}

// A call that came up while the line was full waits in it from then on:
// if the line frees while the call is checked (a check that takes a while,
// as a local activity on Temporal), it still records that it waited, so
// both engines give the same trace.
func TestACallThatFoundTheLineFullWaitedEvenIfItFreedDuringItsCheck(t *testing.T) {
	spec := plainSpec()
	spec.MaxConcurrent = 1
	m, _ := start(spec)
	expect(t, m.Step(reply("", delegate("d1", `{"agent":"x","task":"one"}`), delegate("d2", `{"agent":"y","task":"two"}`))),
		"release, open 0, open 1, admit 0")
	expect(t, m.Step(Event{Kind: EvSlot, Item: 0}), "run 0, check 1")
	expect(t, m.Step(done(0, trace.StatusOK, "r1")), "")
	expect(t, m.Step(Event{Kind: EvChecked, Item: 1}), "queued 1 max_concurrent, admitted 1 max_concurrent, slot 1")
}

func TestNothingInLineStartsOnceTheRunStops(t *testing.T) {
	spec := plainSpec()
	spec.MaxConcurrent = 1
	m, _ := start(spec)
	m.Step(reply("", delegate("d1", `{"agent":"x","task":"1"}`), delegate("d2", `{"agent":"x","task":"2"}`), delegate("d3", `{"agent":"x","task":"3"}`)))
	m.Step(Event{Kind: EvSlot, Item: 0})
	m.Step(Event{Kind: EvChecked, Item: 1})
	stop := &Outcome{Status: trace.StatusCancelled, Error: "run cancelled"}
	expect(t, m.Step(Event{Kind: EvStop, Stop: stop}), "finish 1 cancelled")
	expect(t, m.Step(done(1, trace.StatusCancelled, "")), "check 2")
	expect(t, m.Step(Event{Kind: EvChecked, Item: 2}), "finish 2 cancelled")
	expect(t, m.Step(done(2, trace.StatusCancelled, "")), "")
	expect(t, m.Step(done(0, trace.StatusCancelled, "")), "acquire")
	acts := expect(t, m.Step(Event{Kind: EvSlotBack}), "end cancelled")
	if acts[0].Outcome != *stop {
		t.Fatalf("end = %+v", acts[0])
	}
}

func TestADAGRunsDependentsAfterTheirDependenciesAndSkipsThoseOfAFailure(t *testing.T) {
	m, _ := start(plainSpec())
	turn := reply("",
		delegate("c", `{"agent":"c","task":"combine","id":"C","depends_on":["A","B"]}`),
		delegate("a", `{"agent":"a","task":"A","id":"A"}`),
		delegate("b", `{"agent":"b","task":"B","id":"B"}`),
		delegate("x", `{"agent":"x","task":"x","id":"X","depends_on":["Y"]}`),
		delegate("y", `{"agent":"y","task":"y","id":"Y","depends_on":["X"]}`),
	)
	expect(t, m.Step(turn), "release, refuse 3 arguments error, refuse 4 arguments error, open 1, open 2, admit 1")
	if it := m.Item(3); !strings.Contains(it.ArgErr, "dependency cycle rejected: X → Y → X") {
		t.Fatalf("cycle error = %q", it.ArgErr)
	}
	expect(t, m.Step(done(3, trace.StatusError, "")), "")
	expect(t, m.Step(done(4, trace.StatusError, "")), "")
	expect(t, m.Step(Event{Kind: EvSlot, Item: 1}), "run 1, admit 2")
	expect(t, m.Step(Event{Kind: EvSlot, Item: 2}), "run 2")
	expect(t, m.Step(done(1, trace.StatusOK, "A done")), "")
	acts := expect(t, m.Step(Event{Kind: EvDone, Item: 2, Outcome: Outcome{Status: trace.StatusError, Error: "boom"}}),
		"refuse 0 dependency skipped")
	if want := `skipped: dependency "B" (b) ended error: boom`; acts[0].Outcome.Error != want {
		t.Fatalf("skip reason = %q, want %q", acts[0].Outcome.Error, want)
	}
	expect(t, m.Step(done(0, trace.StatusSkipped, "")), "acquire")
}

func TestTheDependenciesResultsGoWithTheCall(t *testing.T) {
	m, _ := start(plainSpec())
	m.Step(reply("", delegate("a", `{"agent":"a","task":"A","id":"A"}`), delegate("b", `{"agent":"b","task":"B","depends_on":["A"]}`)))
	m.Step(Event{Kind: EvSlot, Item: 0})
	expect(t, m.Step(done(0, trace.StatusOK, "A result")), "admit 1")
	if d := m.Item(1).Deps; len(d) != 1 || d[0].ID != "A" || d[0].Result != "A result" {
		t.Fatalf("deps = %+v", d)
	}
}

func TestMaxToolCallsRunsWhatFitsAndStopsWithTheWorkSoFar(t *testing.T) {
	spec := plainSpec()
	spec.MaxToolCalls = 2
	m, _ := start(spec)
	expect(t, m.Step(reply("reading", call("c1", "fs.read", `{"path":"a"}`), call("c2", "fs.read", `{"path":"b"}`), call("c3", "fs.read", `{"path":"c"}`))), "tool 0")
	expect(t, m.Step(Event{Kind: EvTool, Index: 0, Text: "A"}), "tool 1")
	acts := expect(t, m.Step(Event{Kind: EvTool, Index: 1, Text: "B"}), "limit, end limit")
	o := acts[1].Outcome
	if !strings.Contains(o.Error, "(max_tool_calls)") || !strings.Contains(o.Result, `fs.read {"path":"c"} (not run: the limit)`) ||
		!strings.Contains(o.Result, "Last words:\nreading") || !strings.Contains(o.Result, "To go further: dispatch the agent with a higher max_tool_calls") {
		t.Fatalf("outcome = %+v", o)
	}
	if c := m.Conv(); c[len(c)-1].Content != "not run: "+o.Error {
		t.Fatalf("the call not run reads %q", c[len(c)-1].Content)
	}
}

func TestTheLedgerMayGrantFewerCalls(t *testing.T) {
	spec := plainSpec()
	spec.AskCalls = true
	m, _ := start(spec)
	expect(t, m.Step(reply("", call("c1", "t", `{}`), call("c2", "t", `{}`))), "calls 2")
	expect(t, m.Step(Event{Kind: EvGranted, N: 1, Why: "window full (limits.window_calls)"}), "tool 0")
	acts := expect(t, m.Step(Event{Kind: EvTool, Index: 0}), "limit, end limit")
	if acts[0].Why != "window full (limits.window_calls)" {
		t.Fatalf("limit = %+v", acts[0])
	}
}

func TestAnOrchestratorsLastTurnRunsNoCalls(t *testing.T) {
	spec := plainSpec()
	spec.MaxTurns, spec.LoopLimit = 2, true
	m, _ := start(spec)
	m.Step(reply("", call("c1", "t", `{}`)))
	m.Step(Event{Kind: EvTool, Index: 0})
	acts := expect(t, m.Step(reply("", call("c2", "t", `{}`))), "limit, end limit")
	if !strings.Contains(acts[1].Outcome.Error, "2 orchestrator model calls without a final answer (limits.orchestrator_turns)") {
		t.Fatalf("end = %+v", acts[1])
	}
}

func TestMaxTurnsEndsWithTheWorkSoFar(t *testing.T) {
	spec := plainSpec()
	spec.MaxTurns = 1
	m, _ := start(spec)
	m.Step(reply("", call("c1", "t", `{}`)))
	acts := expect(t, m.Step(Event{Kind: EvTool, Index: 0, Text: "x"}), "end limit")
	if !strings.Contains(acts[0].Outcome.Error, "1 turns without a final answer (max_turns)") {
		t.Fatalf("end = %+v", acts[0])
	}
}

// orch is a dispatcher that collects.
func orch() Spec {
	s := plainSpec()
	s.Dispatcher, s.Collects = true, true
	return s
}

func at(s int) time.Time { return time.Unix(int64(s), 0) }

func TestBackgroundAgentsAreCollectedWhenTheyHaveEnded(t *testing.T) {
	m, _ := start(orch())
	turn := reply("", call("d", DispatchAgentTool, `{"agent_id":"r"}`), call("g", GetAgentResultsTool, `{}`))
	expect(t, m.Step(turn), "async [0]")
	if !m.Clocked() {
		t.Fatal("the async step's event needs the clock")
	}
	job := Job{ID: "r", Agent: "r", Index: 0, Call: turn.Resp.ToolCalls[0]}
	expect(t, m.Step(Event{Kind: EvAsync, Results: []string{`{"status":"running"}`, ""}, Jobs: []Job{job}, At: at(10)}),
		"check -1, open call 1, release")
	expect(t, m.Step(Event{Kind: EvChecked, Item: -1, At: at(10)}), "slot -1")
	expect(t, m.Step(Event{Kind: EvSlot, Item: -1, At: at(10)}), "run -1")
	expect(t, m.Step(Event{Kind: EvDone, Item: -1, Outcome: Outcome{Status: trace.StatusOK, Result: "read"}, Calls: 2, At: at(13)}), "acquire")
	acts := expect(t, m.Step(Event{Kind: EvSlotBack, At: at(13)}), "collect 1")
	r := acts[0].Reports
	if len(r) != 1 || r[0].Status != "completed" || r[0].Result != "read" || r[0].ToolCallsUsed != 2 || r[0].DurationMS != 3000 {
		t.Fatalf("reports = %+v", r)
	}
	expect(t, m.Step(Event{Kind: EvTool, Index: 1, Text: Reports(r)}), "model 0")
	expect(t, m.Step(reply("all read")), "end ok")
}

func TestADispatchWaitsForItsDependenciesAndIsSkippedAfterAFailure(t *testing.T) {
	m, _ := start(orch())
	turn := reply("", call("a", DispatchAgentTool, `{}`), call("b", DispatchAgentTool, `{}`))
	m.Step(turn)
	jobs := []Job{{ID: "a", Index: 0}, {ID: "b", Index: 1, DependsOn: []string{"a"}}}
	expect(t, m.Step(Event{Kind: EvAsync, Results: []string{"", ""}, Jobs: jobs, At: at(1)}), "check -1, model 0")
	m.Step(Event{Kind: EvChecked, Item: -1})
	m.Step(Event{Kind: EvSlot, Item: -1})
	acts := expect(t, m.Step(Event{Kind: EvDone, Item: -1, Outcome: Outcome{Status: trace.StatusTimeout, Error: "too slow"}, At: at(2)}), "finish -2 skipped")
	if want := `skipped because dependency "a" ended timeout: too slow`; acts[0].Outcome.Error != want {
		t.Fatalf("skip = %q, want %q", acts[0].Outcome.Error, want)
	}
}

func TestATextAnswerWhileAgentsRunWaitsAndAsksTheModelAgain(t *testing.T) {
	m, _ := start(orch())
	m.Step(reply("", call("d", DispatchAgentTool, `{}`)))
	m.Step(Event{Kind: EvAsync, Results: []string{""}, Jobs: []Job{{ID: "r", Agent: "r"}}, At: at(1)})
	m.Step(Event{Kind: EvChecked, Item: -1, At: at(1)})
	expect(t, m.Step(reply("done early")), "release")
	m.Step(Event{Kind: EvSlot, Item: -1, At: at(1)})
	expect(t, m.Step(Event{Kind: EvDone, Item: -1, Outcome: Outcome{Status: trace.StatusOK, Result: "late"}, At: at(2)}), "acquire")
	expect(t, m.Step(Event{Kind: EvSlotBack, At: at(2)}), "model 0")
	if c := m.Conv(); !strings.HasPrefix(c[len(c)-1].Content, "These agents you started have finished since") {
		t.Fatalf("last message = %q", c[len(c)-1].Content)
	}
	expect(t, m.Step(reply("all done")), "end ok")
}

func TestBackgroundAgentsOverTheTurnsCapWaitTheirTurn(t *testing.T) {
	spec := orch()
	spec.TurnAgents = 1
	m, _ := start(spec)
	calls := []model.ToolCall{delegate("1", `{"agent":"x","task":"1","background":true}`), delegate("2", `{"agent":"x","task":"2","background":true}`)}
	expect(t, m.Step(reply("", calls...)), "async [0 1]")
	jobs := []Job{{ID: "one", Index: 0, Call: calls[0], Background: true}, {ID: "two", Index: 1, Call: calls[1], Background: true}}
	expect(t, m.Step(Event{Kind: EvAsync, Results: []string{"", ""}, Jobs: jobs, At: at(1)}), "check -1, check -2, model 0")
	expect(t, m.Step(Event{Kind: EvChecked, Item: -1}), "slot -1")
	expect(t, m.Step(Event{Kind: EvChecked, Item: -2}), "queued -2 turn_agents")
	expect(t, m.Step(Event{Kind: EvSlot, Item: -1}), "run -1")
	expect(t, m.Step(Event{Kind: EvDone, Item: -1, Outcome: Outcome{Status: trace.StatusOK}}), "admitted -2 turn_agents, slot -2")
	if c := m.Item(-1).Conv; len(c) != 2 || c[1].Role != model.RoleAssistant {
		t.Fatalf("a background call's conversation = %+v, want the one it was asked in", c)
	}
}

func TestAParallelStreamingTurnGivesTheModelEachResultAsItLands(t *testing.T) {
	spec := orch()
	spec.Dispatcher, spec.Execution = false, "parallel_streaming"
	m, _ := start(spec)
	calls := []model.ToolCall{delegate("1", `{"agent":"slow","task":"1"}`), delegate("2", `{"agent":"fast","task":"2"}`)}
	expect(t, m.Step(reply("", calls...)), "async [0 1]")
	jobs := []Job{{ID: "slow-1", Agent: "slow", Index: 0, Call: calls[0], Background: true, Stream: true},
		{ID: "fast-2", Agent: "fast", Index: 1, Call: calls[1], Background: true, Stream: true}}
	expect(t, m.Step(Event{Kind: EvAsync, Results: []string{"", ""}, Jobs: jobs, At: at(1)}), "check -1, check -2, release")
	m.Step(Event{Kind: EvChecked, Item: -1})
	m.Step(Event{Kind: EvChecked, Item: -2})
	m.Step(Event{Kind: EvSlot, Item: -1})
	m.Step(Event{Kind: EvSlot, Item: -2})
	expect(t, m.Step(Event{Kind: EvDone, Item: -2, Outcome: Outcome{Status: trace.StatusOK, Result: "fast result"}, At: at(2)}), "acquire")
	expect(t, m.Step(Event{Kind: EvSlotBack, At: at(2)}), "model 0")
	msg := m.Conv()[len(m.Conv())-1].Content
	if !strings.Contains(msg, "fast result") || !strings.Contains(msg, "Still running: slow-1 (slow)") {
		t.Fatalf("landing message = %q", msg)
	}
}

func TestAnEndingInvocationStopsItsBackgroundAgents(t *testing.T) {
	spec := orch()
	spec.MaxTurns, spec.LoopLimit = 2, true
	m, _ := start(spec)
	m.Step(reply("", call("d", DispatchAgentTool, `{}`)))
	m.Step(Event{Kind: EvAsync, Results: []string{""}, Jobs: []Job{{ID: "slow", Agent: "slow"}}, At: at(1)})
	m.Step(Event{Kind: EvChecked, Item: -1})
	m.Step(Event{Kind: EvSlot, Item: -1})
	acts := expect(t, m.Step(reply("", call("d2", DispatchAgentTool, `{}`))), "limit, stop jobs")
	_ = acts
	acts = expect(t, m.Step(Event{Kind: EvDone, Item: -1, Outcome: Outcome{Status: trace.StatusCancelled, Error: ErrDispatcherEnded.Error()}, At: at(3)}), "end limit")
	if !strings.Contains(acts[0].Outcome.Result, "slow (slow) (running or waiting when the limit stopped it") {
		t.Fatalf("report = %s", acts[0].Outcome.Result)
	}
}

func TestAgentsWaitingInLineEndWithTheirDispatcher(t *testing.T) {
	spec := orch()
	spec.MaxConcurrent, spec.MaxTurns, spec.LoopLimit = 1, 2, true
	m, _ := start(spec)
	m.Step(reply("", call("d", DispatchAgentTool, `{}`), call("e", DispatchAgentTool, `{}`)))
	m.Step(Event{Kind: EvAsync, Results: []string{"", ""}, Jobs: []Job{{ID: "a"}, {ID: "b"}}, At: at(1)})
	m.Step(Event{Kind: EvChecked, Item: -1})
	m.Step(Event{Kind: EvChecked, Item: -2})
	m.Step(Event{Kind: EvSlot, Item: -1})
	acts := expect(t, m.Step(reply("", call("x", "t", `{}`))), "limit, finish -2 cancelled, stop jobs")
	if acts[1].Outcome.Error != ErrDispatcherEnded.Error() {
		t.Fatalf("finish = %+v", acts[1])
	}
}
