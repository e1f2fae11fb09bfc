package delegation

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentry/agentry/delegation/hooks"
	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/tool/filesystem"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// dispatchSetup is setup with a workspace holding tasks.txt and the
// filesystem tools, and rec recording every model request.
func dispatchSetup(t testing.TB, agents map[string]string, sc string, rec *recorder) fixture {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tasks.txt"), []byte("3 overdue tasks"), 0o644); err != nil {
		t.Fatal(err)
	}
	return setup(t, agents, sc, func(c *Config) {
		ws, err := filesystem.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		c.Tools = ws.Tools()
		withRecorder(sc, rec)(c)
	})
}

type resultsDoc struct {
	Agents []loop.Report `json:"agents"`
}

// collected decodes the result of the n-th get_agent_results span.
func collected(t *testing.T, f fixture, n int) map[string]loop.Report {
	t.Helper()
	sps := f.sink.named("execute_tool get_agent_results")
	if len(sps) <= n {
		t.Fatalf("%d get_agent_results spans, want more than %d", len(sps), n)
	}
	var doc resultsDoc
	if err := json.Unmarshal([]byte(fmt.Sprint(sps[n].Attributes[semconv.AttrToolResult])), &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]loop.Report{}
	for _, a := range doc.Agents {
		out[a.AgentID] = a
	}
	return out
}

const orchFile = "tools: [filesystem]\nsubagents:\n  dispatch: true\n"

func TestAnOrchestratorDiscoversDispatchesWithDependenciesCollectsAndSynthesizes(t *testing.T) {
	rec := &recorder{}
	f := dispatchSetup(t, map[string]string{"orch": orchFile}, `
orch:
  - calls: [{tool: get_skill}, {tool: get_skill, args: {domain: filesystem}}]
  - calls:
      - {tool: dispatch_agent, args: {agent_id: task_search, mission: "Find overdue tasks", skills: [filesystem.read_file]}}
      - {tool: dispatch_agent, args: {agent_id: email_report, mission: "Mail them to Bob", skills: [filesystem.write_file], depends_on: [task_search], context: "Bob is bob@co.com"}}
  - calls: [{tool: get_agent_results}]
  - say: "Sent Bob the 3 overdue tasks."
task_search:
  - calls: [{tool: filesystem.read_file, args: {path: tasks.txt}}]
  - say: "Found 3 overdue tasks"
email_report:
  - calls: [{tool: filesystem.write_file, args: {path: mail.txt, content: "3 overdue"}}]
  - say: "Mail written"
`, rec)
	res := f.run(t, "orch", "Send Bob the overdue tasks report")
	if res.Status != trace.StatusOK || res.Result != "Sent Bob the 3 overdue tasks." {
		t.Fatalf("result = %+v", res)
	}
	got := collected(t, f, 0)
	if a := got["task_search"]; a.Status != "completed" || a.Result != "Found 3 overdue tasks" || a.ToolCallsUsed != 1 {
		t.Errorf("task_search = %+v", a)
	}
	if a := got["email_report"]; a.Status != "completed" || a.ToolCallsUsed != 1 {
		t.Errorf("email_report = %+v", a)
	}
	sys := rec.reqs["email_report"][0].System
	if !strings.Contains(sys, "Found 3 overdue tasks") || !strings.Contains(sys, "bob@co.com") {
		t.Errorf("email_report's prompt lacks its dependency's result or the context:\n%s", sys)
	}
	if tools := requestTools(rec.reqs["task_search"][0]); !slices.Equal(tools, []string{"filesystem.read_file"}) {
		t.Errorf("task_search was offered %v, want only its skill", tools)
	}
	search, mail := f.sink.one(t, "invoke_agent task_search"), f.sink.one(t, "invoke_agent email_report")
	if mail.StartedAt.Before(search.EndedAt) {
		t.Error("email_report started before its dependency ended")
	}
	for _, sp := range []trace.Span{search, mail} {
		parent := f.sink.spans[sp.ParentID]
		if parent.Name != "execute_tool dispatch_agent" || parent.Attributes[semconv.AttrTargetAgent] != sp.Agent || parent.Status != trace.StatusOK {
			t.Errorf("%s hangs under %s %v, want its dispatch_agent span", sp.Name, parent.Name, parent.Attributes)
		}
	}
	var listing map[string][]struct {
		Domain string   `json:"domain"`
		Tools  []string `json:"tools"`
	}
	first := f.sink.named("execute_tool get_skill")[0]
	if err := json.Unmarshal([]byte(fmt.Sprint(first.Attributes[semconv.AttrToolResult])), &listing); err != nil || len(listing["domains"]) != 1 || listing["domains"][0].Domain != "filesystem" {
		t.Errorf("get_skill listing = %v (%v)", first.Attributes[semconv.AttrToolResult], err)
	}
}

func TestADispatchOutsideTheDispatchersToolsIsDeniedWithTheReason(t *testing.T) {
	f := dispatchSetup(t, map[string]string{"orch": "tools: [filesystem.read_file]\nsubagents: {dispatch: true}\n"}, `
orch:
  - calls: [{tool: dispatch_agent, args: {agent_id: writer, mission: "write", skills: [filesystem.write_file]}}]
  - say: "could not"
`, &recorder{})
	f.run(t, "orch", "x")
	sp := f.sink.one(t, "execute_tool dispatch_agent")
	if sp.Status != trace.StatusDenied || !strings.Contains(sp.Error, `skill "filesystem.write_file" is not among your tools`) || !strings.Contains(sp.Error, "orch") {
		t.Fatalf("dispatch span = %s %q", sp.Status, sp.Error)
	}
	if len(f.sink.named("invoke_agent writer")) != 0 {
		t.Fatal("a denied dispatch ran its agent")
	}
}

func TestADependencyCycleIsRefused(t *testing.T) {
	f := dispatchSetup(t, map[string]string{"orch": orchFile}, `
orch:
  - calls:
      - {tool: dispatch_agent, args: {agent_id: a, mission: "m", skills: [filesystem], depends_on: [b]}}
      - {tool: dispatch_agent, args: {agent_id: b, mission: "m", skills: [filesystem], depends_on: [a]}}
      - {tool: dispatch_agent, args: {agent_id: c, mission: "m", skills: [filesystem]}}
  - calls: [{tool: get_agent_results}]
  - say: done
c: [{say: "c done"}]
`, &recorder{})
	f.run(t, "orch", "x")
	for _, sp := range f.sink.named("execute_tool dispatch_agent") {
		target := sp.Attributes[semconv.AttrTargetAgent]
		cyclic := target == "a" || target == "b"
		if cyclic != strings.Contains(sp.Error, "dependency cycle refused") {
			t.Errorf("%v: status %s error %q", target, sp.Status, sp.Error)
		}
	}
	if got := collected(t, f, 0); len(got) != 1 || got["c"].Status != "completed" {
		t.Errorf("collected %v, want only c", got)
	}
}

func TestAFailedAgentsTransitiveDependentsAreSkippedWithTheReason(t *testing.T) {
	f := dispatchSetup(t, map[string]string{"orch": orchFile}, `
orch:
  - calls:
      - {tool: dispatch_agent, args: {agent_id: a, mission: "m", skills: [filesystem]}}
      - {tool: dispatch_agent, args: {agent_id: b, mission: "m", skills: [filesystem], depends_on: [a]}}
      - {tool: dispatch_agent, args: {agent_id: c, mission: "m", skills: [filesystem], depends_on: [b]}}
  - calls: [{tool: get_agent_results, args: {agent_ids: [a, b, c]}}]
  - say: done
a: [{say: "  "}]
b: [{say: "never"}]
c: [{say: "never"}]
`, &recorder{})
	f.run(t, "orch", "x")
	got := collected(t, f, 0)
	if got["a"].Status != "failed" || got["a"].Error != "empty answer" {
		t.Errorf("a = %+v", got["a"])
	}
	for _, id := range []string{"b", "c"} {
		if got[id].Status != "skipped" || !strings.Contains(got[id].Error, `dependency "a" ended failed`) {
			t.Errorf("%s = %+v, want skipped naming a", id, got[id])
		}
		if len(f.sink.named("invoke_agent "+id)) != 0 {
			t.Errorf("skipped %s ran", id)
		}
	}
}

func TestADispatchedAgentOverItsToolCallsReturnsItsProgressWithStatusLimit(t *testing.T) {
	f := dispatchSetup(t, map[string]string{"orch": orchFile}, `
orch:
  - calls: [{tool: dispatch_agent, args: {agent_id: reader, mission: "read twice", skills: [filesystem], max_tool_calls: 1}}]
  - calls: [{tool: get_agent_results}]
  - say: done
reader:
  - calls: [{tool: filesystem.read_file, args: {path: tasks.txt}}]
  - calls: [{tool: filesystem.read_file, args: {path: tasks.txt}}]
  - say: "never"
`, &recorder{})
	f.run(t, "orch", "x")
	r := collected(t, f, 0)["reader"]
	if r.Status != "limit" || r.ToolCallsUsed != 1 || !strings.Contains(r.Result, "3 overdue tasks") || !strings.Contains(r.Error, "max_tool_calls 1") {
		t.Fatalf("reader = %+v, want limit with the file it read", r)
	}
}

func TestAnOrchestratorSeesItsToolsOnlyThroughDispatch(t *testing.T) {
	rec := &recorder{}
	f := dispatchSetup(t, map[string]string{"orch": "tools: [filesystem]\norchestrator: true\n"}, `
orch:
  - calls: [{tool: filesystem.read_file, args: {path: tasks.txt}}]
  - say: "ok"
`, rec)
	f.run(t, "orch", "x")
	if tools := requestTools(rec.reqs["orch"][0]); !slices.Equal(tools, []string{DelegateTool, loop.DispatchAgentTool, loop.GetAgentResultsTool, loop.GetSkillTool}) {
		t.Errorf("orchestrator offered %v", tools)
	}
	if sp := f.sink.one(t, "execute_tool filesystem.read_file"); sp.Status != trace.StatusDenied || !strings.Contains(sp.Error, "dispatch_agent") {
		t.Errorf("direct call = %s %q, want denied pointing at dispatch_agent", sp.Status, sp.Error)
	}
}

func TestABackgroundDelegationReturnsAtOnceAndIsCollectedLater(t *testing.T) {
	rec := &recorder{}
	f := dispatchSetup(t, map[string]string{"coord": "subagents:\n  allow: [a]\n", "a": ""}, `
coord:
  - calls: [{tool: delegate, args: {agent: a, task: "slow work", background: true, id: job1}}]
  - calls: [{tool: get_agent_results, args: {agent_ids: [job1]}}]
  - say: "done"
a:
  - {latency: 20ms, say: "a result"}
`, rec)
	if res := f.run(t, "coord", "x"); res.Status != trace.StatusOK {
		t.Fatalf("result = %+v", res)
	}
	first := rec.reqs["coord"][1].Messages
	if last := first[len(first)-1].Content; !strings.Contains(last, `"status":"running"`) {
		t.Errorf("the delegate call answered %q, want running at once", last)
	}
	if r := collected(t, f, 0)["job1"]; r.Status != "completed" || r.Result != "a result" || r.Agent != "a" {
		t.Errorf("job1 = %+v", r)
	}
}

func TestATextAnswerWhileAgentsRunWaitsAndAsksTheModelAgain(t *testing.T) {
	rec := &recorder{}
	f := dispatchSetup(t, map[string]string{"orch": orchFile}, `
orch:
  - calls: [{tool: dispatch_agent, args: {agent_id: a, mission: "m", skills: [filesystem]}}]
  - say: "premature"
  - say: "with a's result"
a:
  - {latency: 20ms, say: "a done"}
`, rec)
	res := f.run(t, "orch", "x")
	if res.Result != "with a's result" {
		for _, sp := range f.sink.all() {
			t.Logf("%s %s %v", sp.Name, sp.Status, sp.Attributes[semconv.AttrToolResult])
		}
		t.Fatalf("result = %+v", res)
	}
	msgs := rec.reqs["orch"][2].Messages
	if last := msgs[len(msgs)-1]; !strings.Contains(last.Content, "a done") {
		t.Errorf("last turn's message = %q, want a's result", last.Content)
	}
}

func TestSubagentHooksSeeDispatchedAgents(t *testing.T) {
	dir := t.TempDir()
	set := hooks.Set{hooks.SubagentStart: {{Match: "mailer", Command: "echo 'no mail today' >&2; exit 2"}}}
	f := setup(t, map[string]string{"orch": orchFile}, `
orch:
  - calls:
      - {tool: dispatch_agent, args: {agent_id: mailer, mission: "mail Bob", skills: [filesystem]}}
      - {tool: dispatch_agent, args: {agent_id: reader, mission: "read", skills: [filesystem]}}
  - calls: [{tool: get_agent_results}]
  - say: done
reader: [{say: "read it"}]
`, withHooks(t, set, dir))
	f.run(t, "orch", "x")
	got := collected(t, f, 0)
	if got["mailer"].Status != "denied" || got["mailer"].Error != "denied by subagent_start hook: no mail today" || got["reader"].Status != "completed" {
		t.Fatalf("results = %+v", got)
	}
	if len(f.sink.named("invoke_agent mailer")) != 0 {
		t.Error("the blocked agent ran")
	}
}

// A dispatch may depend on one that comes later in the same turn: the
// turn is planned whole before any agent starts (issue 30: the dependent
// panicked and its span stayed running).
func TestADispatchMayDependOnALaterDispatchOfTheSameTurn(t *testing.T) {
	f := dispatchSetup(t, map[string]string{"orch": orchFile}, `
orch:
  - calls:
      - {tool: dispatch_agent, args: {agent_id: report, mission: "write the report", skills: [filesystem], depends_on: [search]}}
      - {tool: dispatch_agent, args: {agent_id: search, mission: "find the tasks", skills: [filesystem]}}
  - calls: [{tool: get_agent_results}]
  - say: done
search: [{latency: 5ms, say: "3 tasks"}]
report: [{say: "report on 3 tasks"}]
`, &recorder{})
	if res := f.run(t, "orch", "x"); res.Status != trace.StatusOK {
		t.Fatalf("result = %+v", res)
	}
	got := collected(t, f, 0)
	if got["report"].Status != "completed" || got["search"].Status != "completed" {
		t.Fatalf("results = %+v, want both completed", got)
	}
	search, report := f.sink.one(t, "invoke_agent search"), f.sink.one(t, "invoke_agent report")
	if report.StartedAt.Before(search.EndedAt) {
		t.Error("report started before the dispatch it depends on ended")
	}
}

// A dispatched agent has a timeout of its own (limits.dispatch_timeout, or
// its dispatch's timeout in seconds): one that runs out is timeout in
// get_agent_results and the orchestrator goes on within its own timeout
// (issue 30: the whole run ended timeout).
func TestADispatchedAgentTimesOutAloneAndTheOrchestratorGoesOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := dispatchSetup(t, map[string]string{"orch": orchFile + "timeout: 2s\n"}, `
orch:
  - calls:
      - {tool: dispatch_agent, args: {agent_id: slow, mission: "take your time", skills: [filesystem]}}
      - {tool: dispatch_agent, args: {agent_id: slower, mission: "take longer", skills: [filesystem], timeout: 0.5}}
  - calls: [{tool: get_agent_results}]
  - say: "went on without them"
slow: [{latency: 4s, say: "too late"}]
slower: [{latency: 4s, say: "too late"}]
`, &recorder{})
		f.rt.cfg.Limits.DispatchTimeout = time.Second
		res := f.run(t, "orch", "x")
		if res.Status != trace.StatusOK || res.Result != "went on without them" {
			t.Fatalf("result = %+v, want the orchestrator to go on", res)
		}
		got := collected(t, f, 0)
		if got["slow"].Status != "timeout" || got["slow"].DurationMS != 1000 {
			t.Errorf("slow = %+v, want timeout after the default 1s", got["slow"])
		}
		if got["slower"].Status != "timeout" || got["slower"].DurationMS != 500 {
			t.Errorf("slower = %+v, want timeout after its own 0.5s", got["slower"])
		}
	})
}

// The calls a limit keeps from running are listed as not done in the
// report, beside what was done.
func TestALimitReportListsTheCallsThatNeverRan(t *testing.T) {
	f := dispatchSetup(t, map[string]string{"orch": orchFile}, `
orch:
  - calls: [{tool: dispatch_agent, args: {agent_id: reader, mission: "read", skills: [filesystem], max_tool_calls: 1}}]
  - calls: [{tool: get_agent_results}]
  - say: done
reader:
  - calls: [{tool: filesystem.read_file, args: {path: tasks.txt}}, {tool: filesystem.write_file, args: {path: out.txt, content: x}}]
  - say: never
`, &recorder{})
	f.run(t, "orch", "x")
	r := collected(t, f, 0)["reader"]
	done, notDone, ok := strings.Cut(r.Result, "\nNot done:\n")
	if r.Status != "limit" || !ok || !strings.Contains(done, "filesystem.read_file → 3 overdue tasks") ||
		!strings.Contains(notDone, "filesystem.write_file") || !strings.Contains(r.Result, "higher max_tool_calls") {
		t.Fatalf("reader = %s\n%s", r.Status, r.Result)
	}
}

// A Claude Code tools list without Task is all the agent may use: with
// subagents.dispatch it is still offered no delegate, dispatch_agent or
// get_agent_results, and a dispatch it asks for anyway runs nothing.
func TestAToolsListWithoutTaskOffersNoDispatch(t *testing.T) {
	rec := &recorder{}
	f := dispatchSetup(t, map[string]string{"reader": "tools: Read\nsubagents: {dispatch: true}\n"}, `
reader:
  - calls: [{tool: dispatch_agent, args: {agent_id: writer, mission: "read", skills: [filesystem.read_file]}}]
  - say: "could not"
`, rec)
	f.run(t, "reader", "x")
	if tools := requestTools(rec.reqs["reader"][0]); !slices.Equal(tools, []string{"filesystem.read_file"}) {
		t.Errorf("reader offered %v, want only filesystem.read_file", tools)
	}
	if sp := f.sink.one(t, "execute_tool dispatch_agent"); sp.Status == trace.StatusOK || len(f.sink.named("invoke_agent writer")) != 0 {
		t.Fatalf("dispatch span = %s %q; it ran %d agents", sp.Status, sp.Error, len(f.sink.named("invoke_agent writer")))
	}
}
