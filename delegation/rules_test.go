package delegation

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/delegation/tool/filesystem"
	"github.com/agentry/agentry/delegation/tool/webfetch"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

func TestDeniedDelegationsReturnTheReasonToTheModel(t *testing.T) {
	cases := []struct {
		name   string
		agents map[string]string
		script string
		mut    func(*Config)
		want   string
	}{
		{"a target outside subagents.allow is denied",
			map[string]string{"coord": "subagents:\n  allow: [a]\n", "a": "", "secret": ""},
			"coord:\n  - calls: [{tool: delegate, args: {agent: secret, task: t}}]\n  - say: done\n", nil, "no subagents allow pattern"},
		{"a disabled agent is denied",
			map[string]string{"coord": "subagents:\n  allow: [a, off]\n", "a": "", "off": "enabled: false\n"},
			"coord:\n  - calls: [{tool: delegate, args: {agent: off, task: t}}]\n  - say: done\n", nil, "disabled"},
		{"a globally disabled agent is denied",
			map[string]string{"coord": "subagents:\n  allow: [a]\n", "a": ""},
			"coord:\n  - calls: [{tool: delegate, args: {agent: a, task: t}}]\n  - say: done\n",
			func(c *Config) { c.Delegation.Disabled = []string{"a"} }, "disabled"},
		{"re-entering an agent already on the branch is denied",
			map[string]string{"coord": "subagents:\n  allow: [mid]\n", "mid": "subagents:\n  allow: [coord]\n  nested: true\n"},
			"coord:\n  - calls: [{tool: delegate, args: {agent: mid, task: t}}]\n  - say: done\nmid:\n  - calls: [{tool: delegate, args: {agent: coord, task: again}}]\n  - say: mid done\n",
			nil, "coord"},
		{"a sub-agent without nested may not delegate",
			map[string]string{"coord": "subagents:\n  allow: [mid]\n", "mid": "subagents:\n  allow: [a]\n", "a": ""},
			"coord:\n  - calls: [{tool: delegate, args: {agent: mid, task: t}}]\n  - say: done\nmid:\n  - calls: [{tool: delegate, args: {agent: a, task: deeper}}]\n  - say: mid done\n",
			nil, "nested"},
		{"max_depth caps a nested branch",
			map[string]string{"coord": "subagents:\n  allow: [mid]\n", "mid": "subagents:\n  allow: [a]\n  nested: true\n", "a": ""},
			"coord:\n  - calls: [{tool: delegate, args: {agent: mid, task: t}}]\n  - say: done\nmid:\n  - calls: [{tool: delegate, args: {agent: a, task: deeper}}]\n  - say: mid done\n",
			func(c *Config) { c.Delegation.MaxDepth = 1 }, "max_depth"},
		{"an unknown agent is denied",
			map[string]string{"coord": "subagents:\n  allow: [\"*\"]\n", "a": ""},
			"coord:\n  - calls: [{tool: delegate, args: {agent: ghost, task: t}}]\n  - say: done\n", nil, "unknown agent"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := setup(t, c.agents, c.script, c.mut)
			rec := &recorder{}
			f.rt.cfg.Models = model.Providers{"script": func(s string) (model.LLM, error) {
				m, err := script.Parse([]byte(c.script))
				rec.LLM = m
				return rec, err
			}}
			if res := f.run(t, "coord", "x"); res.Status != trace.StatusOK {
				t.Fatalf("result = %+v", res)
			}
			var denied []trace.Span
			for _, sp := range f.sink.named("execute_tool delegate") {
				if sp.Status == trace.StatusDenied {
					denied = append(denied, sp)
				}
			}
			if len(denied) != 1 || denied[0].Attributes[semconv.AttrDelegationStatus] != "denied" || !strings.Contains(denied[0].Error, c.want) {
				t.Fatalf("denied spans = %+v", denied)
			}
			// The model that asked reads the denial and its reason.
			asker := denied[0].Agent
			reqs := rec.reqs[asker]
			last := reqs[len(reqs)-1].Messages
			got := last[len(last)-1]
			if got.Role != model.RoleTool || !strings.Contains(got.Content, `"status":"denied"`) || !strings.Contains(got.Content, c.want) {
				t.Fatalf("model read %+v", got)
			}
		})
	}
}

func TestTheDelegateToolOffersOnlyAllowedTargetsSorted(t *testing.T) {
	agents := map[string]string{"coord": "subagents:\n  allow: [b, a]\n  deny: [general-purpose]\n", "a": "", "b": "", "c": "", "mid": ""}
	f := setup(t, agents, "coord:\n  - say: hi\n", func(c *Config) {
		ws, _ := filesystem.Open(t.TempDir())
		c.Tools = append(ws.Tools(), webfetch.New(webfetch.Config{}))
		c.GlobalTools.Deny = []string{"web"}
	})
	f.run(t, "coord", "x")
	sp := f.sink.one(t, "invoke_agent coord")
	tools := sp.Attributes[semconv.AttrEffectiveTools].([]string)
	if !slices.IsSorted(tools) || !slices.Contains(tools, "delegate") || slices.Contains(tools, "web.fetch") || !slices.Contains(tools, "filesystem.read_file") {
		t.Fatalf("effective tools = %v", tools)
	}
	inv := &invocation{rn: &run{rt: f.rt, agents: f.reg.Snapshot()}}
	a, _ := f.reg.Snapshot().Agent("coord")
	inv.agent, inv.branch = a, nil
	inv.branch = append(inv.branch, a.Permissions())
	_, targets := inv.targets()
	spec := string(delegateSpec(targets).Parameters)
	if !strings.Contains(spec, `"enum":["a","b"]`) || !strings.Contains(spec, "- a: The a agent") {
		t.Fatalf("delegate spec = %s", spec)
	}
}

func TestContextModesRecordWhatTheChildGot(t *testing.T) {
	agents := map[string]string{"coord": "subagents:\n  allow: [a, b, c]\n", "a": "", "b": "", "c": ""}
	f := setup(t, agents, `
coord:
  - calls:
      - {tool: delegate, args: {agent: a, task: "only this"}}
      - {tool: delegate, args: {agent: b, task: "with summary", context: summary}}
      - {tool: delegate, args: {agent: c, task: "with everything", context: full}}
  - say: done
a: [{say: a}]
b: [{say: b}]
c: [{say: c}]
`, nil)
	f.run(t, "coord", "the parent task")
	a, b, c := f.sink.one(t, "invoke_agent a"), f.sink.one(t, "invoke_agent b"), f.sink.one(t, "invoke_agent c")
	if a.Attributes[semconv.AttrContextMode] != "task_only" || a.Attributes[semconv.AttrContextPassed] != "only this" {
		t.Fatalf("task_only child got %v", a.Attributes)
	}
	passed := fmt.Sprint(b.Attributes[semconv.AttrContextPassed])
	if b.Attributes[semconv.AttrContextMode] != "summary" || !strings.Contains(passed, "Summary:") || !strings.Contains(passed, "the parent task") {
		t.Fatalf("summary child got %q", passed)
	}
	for _, sp := range []trace.Span{a, b, c} {
		if task := sp.Attributes[semconv.AttrTask]; task != map[string]string{"a": "only this", "b": "with summary", "c": "with everything"}[sp.Agent] {
			t.Errorf("%s's task attribute = %q, want the task as delegated, without the context", sp.Agent, task)
		}
	}
	d := f.sink.delegations()
	var summaryChat int
	for _, sp := range f.sink.all() {
		if sp.Kind == trace.KindChat && sp.ParentID == d["b"].ID && sp.Attributes["purpose"] == "summary" {
			summaryChat++
		}
	}
	if summaryChat != 1 {
		t.Fatalf("%d summary chat spans under b's delegation", summaryChat)
	}
	full, ok := c.Attributes[semconv.AttrContextPassed].(map[string]any)
	if !ok || c.Attributes[semconv.AttrContextMode] != "full" {
		t.Fatalf("full child got %v", c.Attributes)
	}
	msgs := full["messages"].([]model.Message)
	if len(msgs) != 1 || msgs[0].Content != "the parent task" {
		t.Fatalf("full context messages = %+v", msgs)
	}
}

// flaky fails with a transient error that asks for a wait, then answers.
type flaky struct{ calls int }

func (f *flaky) Name() string { return "flaky" }
func (f *flaky) Generate(context.Context, *model.Request) (*model.Response, error) {
	f.calls++
	if f.calls == 1 {
		return nil, &model.TransientError{RetryAfter: 7 * time.Second, Err: errors.New("429 slow down")}
	}
	return &model.Response{Text: "fine"}, nil
}

func TestRetriesHonourRetryAfterAndBackOffOtherwise(t *testing.T) {
	var waits []time.Duration
	sleep := func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	f := setup(t, map[string]string{"solo": "model: flaky\n", "two": "retry: {max_attempts: 3}\n"},
		"two:\n  - error: a\n  - error: b\n  - say: third time\n", func(c *Config) {
			c.Models["flaky"] = func(string) (model.LLM, error) { return &flaky{}, nil }
			c.Sleep = sleep
			c.RetryBackoff = time.Second
		})
	if res := f.run(t, "solo", "x"); res.Status != trace.StatusOK || res.Result != "fine" {
		t.Fatalf("result = %+v", res)
	}
	if !slices.Equal(waits, []time.Duration{7 * time.Second}) {
		t.Fatalf("waits = %v, want the Retry-After", waits)
	}
	chats := f.sink.named("chat flaky")
	if len(chats) != 2 || chats[0].Status != trace.StatusError || chats[1].Attributes[semconv.AttrRetryAttempt] != 1 {
		t.Fatalf("chat spans = %+v", chats)
	}
	waits = nil
	if res := f.run(t, "two", "x"); res.Result != "third time" {
		t.Fatalf("result = %+v", res)
	}
	if !slices.Equal(waits, []time.Duration{time.Second, 2 * time.Second}) {
		t.Fatalf("exponential waits = %v", waits)
	}
}

func TestRetriesStopAtMaxAttempts(t *testing.T) {
	f := setup(t, map[string]string{"two": "retry: {max_attempts: 2}\n"}, "two:\n  - error: a\n  - error: b\n  - say: never\n", nil)
	res := f.run(t, "two", "x")
	if res.Status != trace.StatusError || !strings.Contains(res.Error, "b") {
		t.Fatalf("result = %+v", res)
	}
}

func TestTimeoutsEndABranchButNotItsParent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agents := map[string]string{"coord": "subagents:\n  allow: [slow, quick]\n", "slow": "timeout: 20ms\n", "quick": ""}
		f := setup(t, agents, `
coord:
  - calls:
      - {tool: delegate, args: {agent: slow, task: t}}
      - {tool: delegate, args: {agent: quick, task: t}}
  - say: done anyway
slow: [{latency: 1h, say: late}]
quick: [{say: quick}]
`, nil)
		f.rt.cfg.Sleep = model.Sleep
		res := f.run(t, "coord", "x")
		if res.Status != trace.StatusOK || res.Result != "done anyway" {
			t.Fatalf("result = %+v", res)
		}
		d := f.sink.delegations()
		if r := toolResult(t, d["slow"]); r.Status != "timeout" || toolResult(t, d["quick"]).Status != "ok" {
			t.Fatalf("slow = %+v", r)
		}
	})
}

func TestARunTimeoutEndsEveryBranchAsTimedOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := setup(t, twoChildren("parallel"), "coord:\n  - calls:\n      - {tool: delegate, args: {agent: a, task: t}}\n      - {tool: delegate, args: {agent: b, task: t}}\n  - say: never\na: [{latency: 1h, say: x}]\nb: [{latency: 1h, say: x}]\n",
			func(c *Config) { c.Timeout = 30 * time.Millisecond })
		res := f.run(t, "coord", "x")
		if res.Status != trace.StatusTimeout {
			t.Fatalf("result = %+v", res)
		}
		for _, name := range []string{"invoke_agent coord", "invoke_agent a", "invoke_agent b"} {
			if sp := f.sink.one(t, name); sp.Status != trace.StatusTimeout {
				t.Fatalf("%s ended %s", name, sp.Status)
			}
		}
	})
}

func TestCancelStopsEveryBranchAndMarksItCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &gauge{delay: time.Hour}
		agents := map[string]string{"coord": "subagents:\n  allow: [leaf]\n  max_concurrent: 2\n", "leaf": "model: gauge\n"}
		f := setup(t, agents, fanOutScript(4), func(c *Config) {
			c.Models["gauge"] = func(string) (model.LLM, error) { return g, nil }
		})
		e, err := f.rt.Start(context.Background(), Request{Agent: "coord", Task: "x"})
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // two leaves hold their slots, two wait in line
		if n := g.active.Load(); n != 2 {
			t.Fatalf("%d leaves running, want 2", n)
		}
		e.Cancel()
		res := e.Result()
		if res.Status != trace.StatusCancelled || res.RunID != e.RunID() {
			t.Fatalf("result = %+v", res)
		}
		ds := f.sink.named("execute_tool delegate")
		if len(ds) != 4 {
			t.Fatalf("%d delegations", len(ds))
		}
		for _, sp := range f.sink.all() {
			if sp.Kind != trace.KindChat && sp.Status != trace.StatusCancelled {
				t.Errorf("%s ended %s", sp.Name, sp.Status)
			}
		}
		if f.sink.runs[res.RunID].Status != trace.StatusCancelled {
			t.Fatal("run not recorded as cancelled")
		}
	})
}

func TestBadToolCallsGoBackToTheModelAsResults(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("content"), 0o644)
	ws, _ := filesystem.Open(dir)
	sc := `
solo:
  - calls:
      - {tool: no.such_tool, args: {}}
      - {tool: filesystem.read_file, raw_args: "{not json"}
      - {tool: filesystem.read_file, args: {path: "../escape"}}
      - {tool: filesystem.write_file, args: {path: x, content: y}}
      - {tool: filesystem.read_file, args: {path: f.txt}}
      - {tool: delegate, raw_args: "[1,2"}
  - say: recovered
`
	f := setup(t, map[string]string{"solo": "tools:\n  deny: [filesystem.write_file]\n"}, sc, func(c *Config) { c.Tools = ws.Tools() })
	res := f.run(t, "solo", "x")
	if res.Status != trace.StatusOK || res.Result != "recovered" {
		t.Fatalf("result = %+v", res)
	}
	want := map[string]string{
		"no.such_tool":          "unknown tool",
		"filesystem.write_file": "not allowed",
		"delegate":              "not a valid delegate call",
	}
	for name, frag := range want {
		sp := f.sink.named("execute_tool " + name)
		if len(sp) != 1 || !strings.Contains(sp[0].Error, frag) {
			t.Fatalf("%s spans = %+v", name, sp)
		}
	}
	reads := f.sink.named("execute_tool filesystem.read_file")
	if len(reads) != 3 || !strings.Contains(reads[0].Error, "not valid JSON") || !strings.Contains(reads[1].Error, "escapes") ||
		reads[2].Attributes[semconv.AttrToolResult] != "content" {
		t.Fatalf("read spans = %+v", reads)
	}
}

func TestTurnLimitEndsWithAClearError(t *testing.T) {
	f := setup(t, map[string]string{"loop": "max_turns: 2\n"}, "loop:\n  - calls: [{tool: x}]\n  - calls: [{tool: x}]\n  - say: never\n", nil)
	res := f.run(t, "loop", "x")
	if res.Status != trace.StatusLimit || !strings.Contains(res.Error, "turn limit reached: 2 turns") || !strings.Contains(res.Result, "x → error: unknown tool") {
		t.Fatalf("result = %+v", res)
	}
}

func TestStartRecordsARejectedRunWithItsReason(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("solo:\n  - {sya: hi}\n"), 0o644)
	f := setup(t, map[string]string{"solo": "", "off": "enabled: false\n", "gpt": "model: nowhere:x\n", "legacy-bot": ""}, "solo: [{say: hi}]\n", func(c *Config) {
		c.Models["script"] = func(path string) (model.LLM, error) { return script.Load(path) }
		c.Delegation.Disabled = []string{"legacy-*"}
	})
	cases := []struct {
		name string
		req  Request
		want string
	}{
		{"an unknown agent", Request{Agent: "ghost"}, "unknown agent"},
		{"a disabled agent", Request{Agent: "off"}, "disabled"},
		{"an agent disabled by a global pattern", Request{Agent: "legacy-bot"}, `disabled_agents "legacy-*"`},
		{"an unknown model provider", Request{Agent: "solo", Model: "nowhere:x"}, "unknown model provider"},
		{"a malformed script file", Request{Agent: "solo", Model: "script:" + bad}, "malformed script"},
		{"a missing script file", Request{Agent: "solo", Model: "script:" + bad + ".none"}, "no such file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := f.rt.Start(context.Background(), c.req)
			var rejected *RejectedError
			if !errors.As(err, &rejected) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want a *RejectedError saying %q", err, c.want)
			}
			run, ok := f.sink.runs[rejected.RunID]
			if !ok || run.Status != trace.StatusError || run.Error != err.Error() || run.Agent != c.req.Agent || run.EndedAt.IsZero() {
				t.Fatalf("recorded run = %+v (found %v), want an ended error run with the reason", run, ok)
			}
		})
	}
	if len(f.sink.all()) != 0 {
		t.Fatal("a rejected start recorded spans")
	}
}

func TestAChildsBadModelFallsBackWithoutTouchingItsSiblings(t *testing.T) {
	agents := map[string]string{"coord": "subagents:\n  allow: [a, b]\n", "a": "model: nowhere:x\n", "b": ""}
	f := setup(t, agents, coordScript, nil)
	if res := f.run(t, "coord", "x"); res.Status != trace.StatusOK {
		t.Fatalf("result = %+v", res)
	}
	d := f.sink.delegations()
	if r := toolResult(t, d["a"]); r.Status != "ok" || !strings.Contains(fmt.Sprint(f.sink.one(t, "invoke_agent a").Attributes[AttrModelFallback]), "unknown model provider") {
		t.Fatalf("a = %+v, want it run on the default with the reason on its span", r)
	}
	if toolResult(t, d["b"]).Status != "ok" {
		t.Fatal("b was taken down by a")
	}
}

func TestModelSpecsInheritAliasAndFallBack(t *testing.T) {
	agents := map[string]string{
		"coord": "model: fast\nsubagents:\n  allow: [a, b, general-purpose]\n",
		"a":     "model: inherit\n", "b": "model: opus\n",
	}
	sc := "coord:\n  - calls:\n      - {tool: delegate, args: {agent: a, task: t}}\n      - {tool: delegate, args: {agent: b, task: t}}\n      - {tool: delegate, args: {agent: general-purpose, task: t}}\n  - say: done\na: [{say: a}]\nb: [{say: b}]\ngeneral-purpose: [{say: gp}]\n"
	f := setup(t, agents, sc, func(c *Config) { c.Aliases = map[string]string{"fast": "script:fast"} })
	if res := f.run(t, "coord", "x"); res.Status != trace.StatusOK {
		t.Fatalf("result = %+v", res)
	}
	if m := f.sink.one(t, "invoke_agent a").Attributes[semconv.AttrModel]; m != "script:fast" {
		t.Fatalf("inherit gave %v", m)
	}
	b := f.sink.one(t, "invoke_agent b").Attributes
	if b[semconv.AttrModel] != "script" || !strings.Contains(fmt.Sprint(b["model_fallback"]), `model "opus" (anthropic:claude-opus-4-8): unknown model provider "anthropic"; using the default model "script"`) {
		t.Fatalf("unconfigured alias gave %v", b)
	}
	gp := f.sink.one(t, "invoke_agent general-purpose")
	if gp.Depth != 1 || gp.Attributes[semconv.AttrModel] != "script:fast" {
		t.Fatalf("general-purpose = %+v", gp)
	}
}

// A scripted empty answer (say: "") fails the invocation as an empty
// answer, not the script as malformed.
func TestAScriptedEmptyAnswerIsAnEmptyAnswerError(t *testing.T) {
	f := setup(t, map[string]string{"quiet": ""}, "quiet:\n  - say: \"\"\n", nil)
	if res := f.run(t, "quiet", "x"); res.Status != trace.StatusError || res.Error != loop.ErrEmptyAnswer.Error() {
		t.Fatalf("result = %+v, want error %q", res, loop.ErrEmptyAnswer)
	}
}
