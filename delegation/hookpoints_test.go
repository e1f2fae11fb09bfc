package delegation

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/cost"
	"github.com/agentry/agentry/delegation/hooks"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/delegation/tool/filesystem"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// hookScript writes an executable hook script and returns its path.
func hookScript(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hook.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// withHooks returns a setup mutator that installs set and a real workspace.
func withHooks(t *testing.T, set hooks.Set, ws string) func(*Config) {
	return func(c *Config) {
		w, err := filesystem.Open(ws)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		c.Tools = w.Tools()
		r, err := hooks.New(set, ws)
		if err != nil {
			t.Fatal(err)
		}
		c.Hooks = r
	}
}

const writeScript = `coder:
  - calls:
      - {tool: filesystem.write_file, args: {path: notes.txt, content: hello}}
  - say: done
`

func hookEvents(sp trace.Span) []trace.Event {
	var out []trace.Event
	for _, e := range sp.Events {
		if e.Name == semconv.EventHook {
			out = append(out, e)
		}
	}
	return out
}

func TestAPreToolHookBlocksAWriteAndTheModelReadsWhy(t *testing.T) {
	for name, body := range map[string]string{
		"exit 2":        "echo 'writes need review' >&2\nexit 2\n",
		"JSON decision": `echo '{"decision": "block", "reason": "writes need review"}'` + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			ws := t.TempDir()
			hook := hookScript(t, body)
			set := hooks.Set{hooks.PreTool: {{Match: "filesystem.write_file", Command: hook, Timeout: 0}}}
			rec := &recorder{}
			f := setup(t, map[string]string{"coder": ""}, writeScript, func(c *Config) {
				withHooks(t, set, ws)(c)
				sm := c.Models["script"]
				c.Models = model.Providers{"script": func(s string) (model.LLM, error) {
					llm, err := sm(s)
					rec.LLM = llm
					return rec, err
				}}
			})
			res := f.run(t, "coder", "write notes")
			if res.Status != trace.StatusOK {
				t.Fatalf("run = %+v", res)
			}
			if _, err := os.Stat(filepath.Join(ws, "notes.txt")); err == nil {
				t.Error("the blocked write happened")
			}
			sp := f.sink.one(t, "execute_tool filesystem.write_file")
			if sp.Status != trace.StatusDenied || !strings.Contains(sp.Error, "writes need review") {
				t.Errorf("span status %s, error %q", sp.Status, sp.Error)
			}
			evs := hookEvents(sp)
			if len(evs) != 1 || evs[0].Attributes[semconv.EventAttrVerdict] != hooks.VerdictBlock ||
				evs[0].Attributes[semconv.EventAttrCommand] != hook || evs[0].Attributes[semconv.EventAttrReason] != "writes need review" {
				t.Errorf("hook events = %+v", evs)
			}
			reqs := rec.reqs["coder"]
			last := reqs[len(reqs)-1].Messages
			got := last[len(last)-1]
			if got.Role != model.RoleTool || got.Content != "denied by pre_tool hook: writes need review" {
				t.Errorf("the model read %q (%s)", got.Content, got.Role)
			}
		})
	}
}

func TestADeniedToolRunsNoHook(t *testing.T) {
	ws := t.TempDir()
	mark := filepath.Join(t.TempDir(), "ran")
	set := hooks.Set{hooks.PreTool: {{Command: "touch " + mark}}}
	f := setup(t, map[string]string{"coder": "tools: {deny: [filesystem.write_file]}\n"}, writeScript, withHooks(t, set, ws))
	f.run(t, "coder", "write notes")
	if sp := f.sink.one(t, "execute_tool filesystem.write_file"); sp.Status != trace.StatusDenied || len(hookEvents(sp)) != 0 {
		t.Errorf("span %s with %d hook events", sp.Status, len(hookEvents(sp)))
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("a hook ran for a tool the permissions deny")
	}
}

func TestPostToolHooksSeeTheResultAndOthersAreNotRun(t *testing.T) {
	ws := t.TempDir()
	got := filepath.Join(t.TempDir(), "post.json")
	set := hooks.Set{
		hooks.PreTool:  {{Match: "shell.run", Command: "exit 2"}},
		hooks.PostTool: {{Match: "filesystem", Command: "cat > " + got}},
	}
	f := setup(t, map[string]string{"coder": ""}, writeScript, withHooks(t, set, ws))
	if res := f.run(t, "coder", "write notes"); res.Status != trace.StatusOK {
		t.Fatalf("run = %+v", res)
	}
	if _, err := os.Stat(filepath.Join(ws, "notes.txt")); err != nil {
		t.Errorf("a pre_tool hook on shell.run stopped a write: %v", err)
	}
	data, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"hook_event_name":"PostToolUse"`, `"tool_response":`, `"status":"ok"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("post_tool input lacks %s: %s", want, data)
		}
	}
	sp := f.sink.one(t, "execute_tool filesystem.write_file")
	if evs := hookEvents(sp); len(evs) != 1 || evs[0].Attributes[semconv.EventAttrHook] != "post_tool" {
		t.Errorf("hook events = %+v", evs)
	}
}

func TestSubagentAndRunHooks(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	set := hooks.Set{
		hooks.RunStart:      {{Command: "echo run_start >> " + log}},
		hooks.SubagentStart: {{Match: "deployer", Command: "echo 'no deploys on Friday' >&2; exit 2"}, {Command: "echo subagent_start >> " + log}},
		hooks.SubagentStop:  {{Command: "echo subagent_stop >> " + log}},
		hooks.RunEnd:        {{Command: "echo run_end >> " + log}},
	}
	agents := map[string]string{"lead": "subagents: [writer, deployer]\n", "writer": "", "deployer": ""}
	sc := `lead:
  - calls:
      - {tool: delegate, args: {agent: deployer, task: ship it}}
  - calls:
      - {tool: delegate, args: {agent: writer, task: write it}}
  - say: done
writer:
  - say: written
`
	f := setup(t, agents, sc, withHooks(t, set, dir))
	res := f.run(t, "lead", "go")
	if res.Status != trace.StatusOK {
		t.Fatalf("run = %+v", res)
	}
	d := f.sink.delegations()
	if r := toolResult(t, d["deployer"]); r.Status != trace.StatusDenied || r.Error != "denied by subagent_start hook: no deploys on Friday" {
		t.Errorf("deployer = %+v", r)
	}
	if len(f.sink.named("invoke_agent deployer")) != 0 {
		t.Error("the blocked sub-agent ran")
	}
	if r := toolResult(t, d["writer"]); r.Status != trace.StatusOK {
		t.Errorf("writer = %+v", r)
	}
	data, _ := os.ReadFile(log)
	if got, want := strings.Fields(string(data)), []string{"run_start", "subagent_start", "subagent_stop", "run_end"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("hooks ran %v, want %v", got, want)
	}
	root := f.sink.one(t, "invoke_agent lead")
	if evs := hookEvents(root); len(evs) != 2 {
		t.Errorf("root hook events = %+v", evs)
	}
}

func TestARunStartHookCanRefuseTheRun(t *testing.T) {
	set := hooks.Set{hooks.RunStart: {{Command: `echo '{"decision":"block","reason":"maintenance"}'`}}}
	f := setup(t, map[string]string{"coder": ""}, writeScript, withHooks(t, set, t.TempDir()))
	res := f.run(t, "coder", "go")
	if res.Status != trace.StatusDenied || res.Error != "denied by run_start hook: maintenance" {
		t.Fatalf("run = %+v", res)
	}
	if n := len(f.sink.named("chat script")); n != 0 {
		t.Errorf("%d model calls after a refused start", n)
	}
}

func TestChatSpansCarryTheirCost(t *testing.T) {
	sc := `coder:
  - {say: done, tokens: {input: 1000000, output: 200000}}
`
	tab, err := cost.New(map[string]cost.Price{"script": {Input: 3, Output: 15}})
	if err != nil {
		t.Fatal(err)
	}
	f := setup(t, map[string]string{"coder": ""}, sc, func(c *Config) { c.Prices = tab })
	f.run(t, "coder", "go")
	var chat trace.Span
	for _, sp := range f.sink.all() {
		if sp.Kind == trace.KindChat {
			chat = sp
		}
	}
	if got := trace.SpanCost(chat); math.Abs(got-6) > 1e-9 {
		t.Errorf("cost_usd = %v (%v), want 6", got, chat.Attributes)
	}
	total, by := trace.CostRollup(f.sink.all())
	if math.Abs(total-6) > 1e-9 || math.Abs(by["coder"]-6) > 1e-9 {
		t.Errorf("rollup = %v %v", total, by)
	}
}

var _ control.Hooks = (*hooks.Runner)(nil)
var _ control.Prices = (*cost.Table)(nil)

// TestAHooksConditionPicksTheCommandsItRunsFor: a pre_tool hook with If
// "shell.run(git push *)" (Claude Code's "if": "Bash(git push *)") runs for
// the lines with a git push in them and for no other shell call.
func TestAHooksConditionPicksTheCommandsItRunsFor(t *testing.T) {
	log := filepath.Join(t.TempDir(), "ran")
	hook := hookScript(t, "cat >> "+log+"\necho >> "+log+"\n")
	set := hooks.Set{hooks.PreTool: {{Match: "shell.run", If: "shell.run(git push *)", Command: hook}}}
	sh := &fakeShell{}
	f := setup(t, map[string]string{"coder": ""}, `
coder:
  - calls:
      - {tool: shell.run, args: {command: "git status"}}
      - {tool: shell.run, args: {command: "make && git push origin main"}}
      - {tool: shell.run, args: {command: "ls"}}
  - say: done
`, func(c *Config) {
		withHooks(t, set, t.TempDir())(c)
		c.Tools = []tool.Tool{sh}
	})
	if res := f.run(t, "coder", "go"); res.Status != trace.StatusOK {
		t.Fatalf("run: %+v", res)
	}
	if len(sh.ran) != 3 {
		t.Fatalf("ran %q, want all three", sh.ran)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("the hook never ran: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "git push origin main") {
		t.Errorf("the hook read %q, want the push line alone", lines)
	}
}
