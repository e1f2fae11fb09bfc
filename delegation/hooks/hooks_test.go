package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// script writes an executable shell script to a temp dir and returns its path.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hook.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func runner(t *testing.T, set Set) *Runner {
	t.Helper()
	r, err := New(set, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func toolEvent() Event {
	return Event{RunID: "r1", SessionID: "r1", Agent: "coder", ToolName: "filesystem.write_file",
		ToolInput: json.RawMessage(`{"path":"a.txt","content":"x"}`), ToolUseID: "call_1"}
}

func TestVerdicts(t *testing.T) {
	cases := []struct {
		name       string
		body       string
		onError    string
		wantBlock  bool
		wantReason string
	}{
		{"exit 0 without output allows", "exit 0\n", "", false, ""},
		{"exit 2 blocks with stderr as the reason", "echo 'no writes here' >&2\nexit 2\n", "", true, "no writes here"},
		{"a block decision on stdout blocks with its reason", `echo '{"decision": "block", "reason": "read-only"}'` + "\n", "", true, "read-only"},
		{"Claude Code's permissionDecision deny blocks", `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "nope"}}'` + "\n", "", true, "nope"},
		{"an approve decision allows", `echo '{"decision": "approve"}'` + "\n", "", false, ""},
		{"plain text on stdout allows", "echo hello\n", "", false, ""},
		{"output past the cap is ignored, per on_error", "yes '{}' | head -c 100000\n", OnErrorBlock, true, "hook printed more than 65536 bytes; its output was ignored (on_error: block)"},
		{"another exit code allows by default", "echo broken >&2\nexit 1\n", "", false, "hook failed: exit status 1: broken (on_error: allow)"},
		{"another exit code blocks with on_error block", "exit 3\n", OnErrorBlock, true, "hook failed: exit status 3 (on_error: block)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runner(t, Set{PreTool: {{Command: script(t, c.body), OnError: c.onError}}})
			out := r.Fire(context.Background(), PreTool, toolEvent())
			if len(out.Runs) != 1 {
				t.Fatalf("%d runs, want 1", len(out.Runs))
			}
			// The outcome's reason is the blocking one; the run's says why it allowed.
			reason := out.Runs[0].Reason
			if out.Block && out.Reason != reason {
				t.Errorf("outcome reason %q, run reason %q", out.Reason, reason)
			}
			if out.Block != c.wantBlock || reason != c.wantReason {
				t.Fatalf("got block=%v reason=%q, want block=%v reason=%q", out.Block, reason, c.wantBlock, c.wantReason)
			}
		})
	}
}

func TestTheEventArrivesAsJSONOnStdin(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "event.json")
	r := runner(t, Set{PreTool: {{Command: "cat > " + got}}})
	r.Fire(context.Background(), PreTool, toolEvent())
	data, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatalf("stdin is not JSON: %v\n%s", err, data)
	}
	want := map[string]any{"hook_event_name": "PreToolUse", "hook_point": "pre_tool", "session_id": "r1",
		"tool_name": "filesystem.write_file", "tool_use_id": "call_1", "agent": "coder"}
	for k, v := range want {
		if ev[k] != v {
			t.Errorf("%s = %v, want %v", k, ev[k], v)
		}
	}
	if in, _ := ev["tool_input"].(map[string]any); in["path"] != "a.txt" {
		t.Errorf("tool_input = %v", ev["tool_input"])
	}
	if ev["cwd"] == "" || ev["cwd"] == nil {
		t.Errorf("cwd is empty")
	}
}

func TestMatchPicksTheHooksThatRun(t *testing.T) {
	dir := t.TempDir()
	mark := func(name string) string { return "touch " + filepath.Join(dir, name) }
	r := runner(t, Set{PreTool: {
		{Match: "shell.run", Command: mark("shell")},
		{Match: "filesystem", Command: mark("group")},
		{Match: "web.fetch|filesystem.write_*", Command: mark("alt")},
		{Command: mark("all")},
	}})
	out := r.Fire(context.Background(), PreTool, toolEvent())
	if len(out.Runs) != 3 {
		t.Errorf("%d hooks ran, want 3", len(out.Runs))
	}
	for name, want := range map[string]bool{"shell": false, "group": true, "alt": true, "all": true} {
		_, err := os.Stat(filepath.Join(dir, name))
		if (err == nil) != want {
			t.Errorf("hook %s ran = %v, want %v", name, err == nil, want)
		}
	}
}

func TestTheFirstBlockEndsTheRound(t *testing.T) {
	dir := t.TempDir()
	r := runner(t, Set{SubagentStart: {
		{Match: "deployer", Command: "echo 'not today' >&2; exit 2"},
		{Command: "touch " + filepath.Join(dir, "later")},
	}})
	out := r.Fire(context.Background(), SubagentStart, Event{Agent: "lead", AgentType: "deployer"})
	if !out.Block || out.Reason != "not today" {
		t.Fatalf("outcome = %+v", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "later")); err == nil {
		t.Error("a hook after the blocking one ran")
	}
	if out := r.Fire(context.Background(), SubagentStart, Event{Agent: "lead", AgentType: "writer"}); out.Block {
		t.Errorf("a hook matched on deployer blocked writer: %+v", out)
	}
}

// A hook that hangs is killed at its timeout with its children, and counts
// per on_error.
func TestAHangingHookIsKilledWithItsProcessGroup(t *testing.T) {
	for _, onError := range []string{OnErrorAllow, OnErrorBlock} {
		t.Run(onError, func(t *testing.T) {
			// The hook must have started its child before it times out,
			// which a loaded machine can delay past any fixed timeout: each
			// attempt whose hook timed out before that doubles the timeout.
			for timeout := 300 * time.Millisecond; ; timeout *= 2 {
				pidFile := filepath.Join(t.TempDir(), "pid")
				body := "sleep 600 &\necho $! > " + pidFile + "\nwait\n"
				r := runner(t, Set{PreTool: {{Command: script(t, body), Timeout: timeout, OnError: onError}}})
				out := r.Fire(context.Background(), PreTool, toolEvent())
				if out.Block != (onError == OnErrorBlock) {
					t.Errorf("block = %v with on_error %s", out.Block, onError)
				}
				run := out.Runs[0]
				if !strings.Contains(run.Err, "timed out") || run.Verdict != onError {
					t.Errorf("run = %+v", run)
				}
				data, _ := os.ReadFile(pidFile)
				pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
				if err != nil || pid <= 0 { // killed before it wrote its child's pid
					if timeout > time.Minute {
						t.Fatalf("the hook never started its child: %q", data)
					}
					continue
				}
				waitGone(t, pid)
				return
			}
		})
	}
}

// waitGone waits until pid is dead (gone or a zombie); a kill is delivered
// at once, but the exit is the kernel's to finish.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for range 500 {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || syscall.Kill(pid, 0) != nil {
			return
		}
		if f := strings.Fields(string(stat)); len(f) > 2 && (f[2] == "Z" || f[2] == "X") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the hook's child %d is still running", pid)
}

func TestValidateRejectsBadHooks(t *testing.T) {
	for name, set := range map[string]Set{
		"unknown point":    {"before_tool": {{Command: "true"}}},
		"empty command":    {PreTool: {{Command: " "}}},
		"unknown on_error": {PreTool: {{Command: "true", OnError: "maybe"}}},
	} {
		if _, err := New(set, ""); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestClaudeCodeSettingsLoad(t *testing.T) {
	settings := `{
	  "permissions": {"allow": ["Bash(git:*)"]},
	  "hooks": {
	    "PreToolUse": [
	      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 5}]},
	      {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "./lint.sh"}]},
	      {"matcher": "NotebookEdit", "hooks": [{"type": "command", "command": "./nb.sh"}]}
	    ],
	    "PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "./log.sh"}]}],
	    "SubagentStop": [{"hooks": [{"type": "command", "command": "./done.sh"}]}],
	    "Stop": [{"hooks": [{"type": "command", "command": "./stop.sh"}]}],
	    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "./prompt.sh"}]}]
	  }
	}`
	set, warnings, err := LoadClaude([]byte(settings), nil)
	if err != nil {
		t.Fatal(err)
	}
	pre := set[PreTool]
	if len(pre) != 2 {
		t.Fatalf("pre_tool = %+v", pre)
	}
	if pre[0].Match != "shell.run" || pre[0].Command != "./check.sh" || pre[0].Timeout != 5*time.Second {
		t.Errorf("Bash hook = %+v", pre[0])
	}
	if pre[1].Match != "filesystem.edit_file|filesystem.write_file" {
		t.Errorf("Edit|Write hook matches %q", pre[1].Match)
	}
	if len(set[PostTool]) != 1 || set[PostTool][0].Match != "" {
		t.Errorf("post_tool = %+v", set[PostTool])
	}
	if len(set[SubagentStop]) != 1 || len(set[RunEnd]) != 1 || set[RunEnd][0].Command != "./stop.sh" {
		t.Errorf("subagent_stop = %+v, run_end = %+v", set[SubagentStop], set[RunEnd])
	}
	joined := strings.Join(warnings, "\n")
	for _, want := range []string{"NotebookEdit", "UserPromptSubmit"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no warning names %s: %q", want, joined)
		}
	}
	if _, _, err := LoadClaude([]byte(`{"hooks": [}`), nil); err == nil {
		t.Error("broken JSON loaded")
	}
}

// TestAClaudeHandlersIfNarrowsItsHook: Claude Code's per-handler "if" rule
// becomes the hook's If, so a script meant for git commit is not started
// after every shell call; a rule agentry cannot narrow keeps the hook for
// every call of its tool, and one naming no tool drops it, both with a word.
func TestAClaudeHandlersIfNarrowsItsHook(t *testing.T) {
	settings := `{"hooks": {"PostToolUse": [{"matcher": "Bash|Edit", "hooks": [
	  {"type": "command", "command": "./commit.sh", "if": "Bash(git commit:*)"},
	  {"type": "command", "command": "./ts.sh", "if": "Edit(src/**)"},
	  {"type": "command", "command": "./nb.sh", "if": "NotebookEdit"},
	  {"type": "command", "command": "./all.sh"}]}]}}`
	set, warnings, err := LoadClaude([]byte(settings), nil)
	if err != nil {
		t.Fatal(err)
	}
	post := set[PostTool]
	var got []string
	for _, h := range post {
		got = append(got, h.Command+" if "+h.If)
	}
	want := []string{"./commit.sh if shell.run(git commit *)", "./ts.sh if filesystem.edit_file", "./all.sh if "}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("hooks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	joined := strings.Join(warnings, "\n")
	for _, w := range []string{`if "Edit(src/**)": agentry cannot limit Edit to (src/**), so the hook runs for every call of it`,
		`if "NotebookEdit": not available in agentry; hook dropped`} {
		if !strings.Contains(joined, w) {
			t.Errorf("no warning %q in:\n%s", w, joined)
		}
	}
	r := runner(t, set)
	for _, c := range []struct {
		tool, line string
		want       []string
	}{
		{"shell.run", "git status", []string{"./all.sh"}},
		{"shell.run", "go test ./... && git commit -m x", []string{"./commit.sh", "./all.sh"}},
		{"shell.run", "git commit $(cat msg)", []string{"./commit.sh", "./all.sh"}}, // cannot be read: runs
		{"filesystem.edit_file", "", []string{"./ts.sh", "./all.sh"}},
	} {
		ev := Event{Point: PostTool, ToolName: c.tool, Argument: c.line, HasArgument: c.tool == "shell.run"}
		var ran []string
		for _, h := range r.set[PostTool] {
			if h.matches(ev) {
				ran = append(ran, h.Command)
			}
		}
		if strings.Join(ran, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s %q runs %q, want %q", c.tool, c.line, ran, c.want)
		}
	}
}

func TestAnIfOutsideToolHooksOrNamingNoOneToolIsRefused(t *testing.T) {
	for want, set := range map[string]Set{
		`hooks: run_end[0]: if "shell.run(git *)": only tool hooks (pre_tool, post_tool) take a condition`: {RunEnd: {{Command: "x", If: "shell.run(git *)"}}},
		`hooks: pre_tool[0]: if "shell(git *)": a pattern with an argument part must name one tool`:        {PreTool: {{Command: "x", If: "shell(git *)"}}},
	} {
		if _, err := New(set, ""); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%+v: err = %v, want %s…", set, err, want)
		}
	}
}
