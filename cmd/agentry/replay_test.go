package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const replayWriter = "---\nname: writer\ndescription: Writes\ntools: [filesystem]\nsubagents: [helper, checker]\n---\nWrite it, then ask HELPER.\n"

// originalScript writes a file, reads one and asks helper.
const originalScript = `
writer:
  - calls:
      - {tool: filesystem.write_file, args: {path: out.txt, content: "hello"}}
      - {tool: filesystem.read_file, args: {path: in.txt}}
  - calls: [{tool: delegate, args: {agent: helper, task: "check out.txt"}}]
  - say: "wrote out.txt"
helper:
  - say: "looks right"
checker:
  - say: "checked"
`

// editedScript is the edited writer: the same calls in another order, one
// new write, and checker asked instead of helper.
const editedScript = `
writer:
  - calls:
      - {tool: filesystem.read_file, args: {path: in.txt}}
      - {tool: filesystem.write_file, args: {content: "hello", path: out.txt}}
      - {tool: filesystem.write_file, args: {path: new.txt, content: "new"}}
  - calls: [{tool: delegate, args: {agent: checker, task: "check out.txt"}}]
  - say: "wrote out.txt again"
helper:
  - say: "looks right"
checker:
  - say: "checked"
`

type replayJSON struct {
	RunID    string `json:"run_id"`
	Status   string `json:"status"`
	Result   string `json:"result"`
	ReplayOf string `json:"replay_of"`
	Replayed int64  `json:"replayed"`
	Refused  int64  `json:"refused"`
	Live     int64  `json:"live"`
}

func TestAReplayAnswersRecordedCallsWithoutSideEffects(t *testing.T) {
	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "writer.md", replayWriter)
	writeFile(t, agents, "helper.md", "---\nname: helper\ndescription: Helps\n---\nHelp.\n")
	writeFile(t, agents, "checker.md", "---\nname: checker\ndescription: Checks\n---\nCheck.\n")
	writeFile(t, dir, "in.txt", "input")
	original := writeFile(t, dir, "original.yaml", originalScript)
	edited := writeFile(t, dir, "edited.yaml", editedScript)
	env := []string{"AGENTRY_WORKSPACE=" + dir, "AGENTRY_AGENTS=" + agents, "AGENTRY_DB=" + filepath.Join(dir, "trace.db")}

	code, out, errOut := cli(t, env, "run", "writer", "write it", "--model", "script:"+original, "--json")
	var first replayJSON
	if err := json.Unmarshal([]byte(out), &first); code != 0 || err != nil {
		t.Fatalf("original run: exit %d, %q, %q", code, out, errOut)
	}
	if err := os.Remove(filepath.Join(dir, "out.txt")); err != nil {
		t.Fatalf("the original run did not write out.txt: %v", err)
	}
	writeFile(t, agents, "writer.md", strings.Replace(replayWriter, "ask HELPER", "ask CHECKER", 1))

	code, out, errOut = cli(t, env, "run", "--replay", first.RunID, "--model", "script:"+edited, "--json")
	var got replayJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 {
		t.Fatalf("replay: exit %d, %q, %q", code, out, errOut)
	}
	if got.ReplayOf != first.RunID || got.Replayed != 2 || got.Refused != 1 || got.Live != 0 || got.Result != "wrote out.txt again" {
		t.Errorf("replay = %+v", got)
	}
	for _, f := range []string{"out.txt", "new.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("the replay wrote %s: a recorded call had a side effect, or a new one ran", f)
		}
	}
	code, out, errOut = cli(t, env, "traces", "show", got.RunID, "--json")
	if code != 0 || !strings.Contains(out, `"replay_of":"`+first.RunID+`"`) && !strings.Contains(out, `"replay_of": "`+first.RunID+`"`) {
		t.Errorf("the replay's root span does not name the original: %q %q", out, errOut)
	}

	// In words: what was replayed, and what moved against the original.
	code, out, _ = cli(t, env, "run", "--replay", first.RunID, "--model", "script:"+edited)
	for _, want := range []string{
		"replay of run " + first.RunID + ": 2 tool calls answered from the recording, 1 refused, 0 run live",
		"against the original: 1 call added, 0 dropped, 1 changed; final answer changed",
		"/runs/" + first.RunID + "/diff/",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("replay printed\n%s\nwant a line with %q", out, want)
		}
	}

	code, out, _ = cli(t, env, "run", "--replay", first.RunID, "--model", "script:"+edited, "--live-tools", "--json")
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 || got.Live != 1 || got.Refused != 0 {
		t.Fatalf("live replay: exit %d, %q", code, out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "new.txt")); err != nil || string(b) != "new" {
		t.Errorf("--live-tools did not run the new write: %q, %v", b, err)
	}
}

func TestReplaySaysWhatIsWrongWithItsArguments(t *testing.T) {
	dir := t.TempDir()
	env := []string{"AGENTRY_WORKSPACE=" + dir, "AGENTRY_AGENTS=" + dir, "AGENTRY_DB=" + filepath.Join(dir, "trace.db")}
	cases := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"run", "--replay", "r1", "writer", "task"}, 2, "run --replay takes no AGENT or TASK"},
		{[]string{"run", "--live-tools", "writer", "task"}, 2, "--version and --live-tools go with --replay"},
		{[]string{"run", "--replay", "nosuchrun"}, 1, "no trace database at " + filepath.Join(dir, "trace.db") + ", so no such run"},
		{[]string{"history", "writer"}, 1, "agent \"writer\" has no versions"}, // creates the database
		{[]string{"run", "--replay", "nosuchrun"}, 1, "replay nosuchrun: "},
		{[]string{"run", "--replay", "nosuchrun", "--version", "writer"}, 2, `--version "writer": want AGENT=HASH`},
	}
	for _, c := range cases {
		code, _, errOut := cli(t, env, c.args...)
		if code != c.code || !strings.Contains(errOut, c.stderr) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", c.args, code, errOut, c.code, c.stderr)
		}
	}
}
