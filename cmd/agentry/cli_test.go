package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// cli runs the whole command line as main does, with a test session.
func cli(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	s, out, errOut := testSession(env...)
	code = s.main(context.Background(), args)
	return code, out.String(), errOut.String()
}

func TestTheCommandLineSaysHowToUseIt(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string // a part of stdout; "" = stdout must be empty
		stderr string // a part of stderr; "" = stderr must be empty
	}{
		{"bare agentry prints usage and exits 2", nil, 2, "", "usage: agentry COMMAND [flags]"},
		{"--help prints usage and exits 0", []string{"--help"}, 0, "usage: agentry COMMAND [flags]", ""},
		{"help lists every command", []string{"help"}, 0, "  run          run an agent on a task", ""},
		{"help run is run --help", []string{"help", "run"}, 0, "usage: agentry run AGENT TASK [flags]", ""},
		{"help of an unknown command", []string{"help", "rnu"}, 2, "", "agentry: unknown command \"rnu\"; did you mean run?\n"},
		{"run --help names its arguments", []string{"run", "--help"}, 0, "usage: agentry run AGENT TASK [flags]", ""},
		{"run -h lists the flags", []string{"run", "-h"}, 0, "  --model SPEC ", ""},
		{"permissions --help names its argument", []string{"permissions", "--help"}, 0, "usage: agentry permissions AGENT [--via PARENT,...] [flags]", ""},
		{"traces --help names its subcommands", []string{"traces", "--help"}, 0, "usage: agentry traces [list | show RUN_ID | export RUN_ID | import FILE | delete RUN_ID...] [flags]", ""},
		{"validate --help", []string{"validate", "--help"}, 0, "usage: agentry validate [flags]", ""},
		{"skills list --help", []string{"skills", "list", "--help"}, 0, "usage: agentry skills list [flags]", ""},
		{"skills needs its subcommand, as its usage says", []string{"skills"}, 2, "", "usage: agentry skills COMMAND [flags]"},
		{"plugins --help names its subcommands", []string{"plugins", "--help"}, 0, "usage: agentry plugins [add PATH|GIT-URL | list | remove NAME | update [NAME...] | show NAME | enable NAME | disable NAME] [flags]", ""},
		{"plugins enable --help", []string{"plugins", "enable", "--help"}, 0, "  --yes ", ""},
		{"run --help names --command", []string{"run", "--help"}, 0, "  --command NAME ", ""},
		{"serve --help", []string{"serve", "--help"}, 0, "  --addr HOST:PORT ", ""},
		{"mcp --help", []string{"mcp", "--help"}, 0, "usage: agentry mcp [flags]", ""},
		{"a misspelt command gets a suggestion", []string{"rnu"}, 2, "", "agentry: unknown command \"rnu\"; did you mean run?\n"},
		{"an unknown command far from any gets none", []string{"frobnicate"}, 2, "", "agentry: unknown command \"frobnicate\"\n"},
		{"a misspelt flag gets a suggestion", []string{"run", "--modle", "x", "a", "b"}, 2, "", "agentry run: unknown flag --modle; did you mean --model?\n\nusage: agentry run AGENT TASK [flags]"},
		{"a misspelt flag of validate", []string{"validate", "--jsno"}, 2, "", "agentry validate: unknown flag --jsno; did you mean --json?\n"},
		{"a long flag with one dash names the long flag", []string{"run", "-json", "a", "b"}, 2, "", "agentry run: unknown flag -json; did you mean --json?\n"},
		{"an unknown short flag is named as given", []string{"run", "-x", "a", "b"}, 2, "", "agentry run: unknown flag -x\n"},
		{"a flag missing its value", []string{"run", "--model"}, 2, "", "agentry run: flag --model needs a value\n"},
		{"a flag with a bad value", []string{"traces", "--limit", "many"}, 2, "", "agentry traces: invalid value \"many\" for flag --limit: "},
		{"run without arguments", []string{"run"}, 2, "", "agentry run: run needs AGENT and TASK\n\nusage: agentry run AGENT TASK [flags]"},
		{"run without a task", []string{"run", "coord"}, 2, "", "agentry run: run needs a TASK after the agent \"coord\"\n"},
		{"run with a blank task", []string{"run", "coord", " ", ""}, 2, "", "agentry run: run needs a TASK after the agent \"coord\"\n"},
		{"run --continue with a blank task", []string{"run", "--continue", "r1", ""}, 2, "", "agentry run: --continue r1 takes a TASK that says something, or none to continue a run its budget stopped\n"},
		{"run --continue without a run", []string{"run", "--continue", "", "more"}, 2, "", "agentry run: --continue needs the RUN_ID of the run to continue\n"},
		{"run --command with --continue", []string{"run", "--command", "review", "--continue", "r1"}, 2, "", "agentry run: --command and --continue do not go together\n"},
		{"plugins remove without a name", []string{"plugins", "remove"}, 2, "", "agentry plugins remove: plugins remove needs the plugin's NAME\n"},
		{"permissions without an agent", []string{"permissions"}, 2, "", "agentry permissions: permissions needs an AGENT\n"},
		{"permissions with a chain as arguments", []string{"permissions", "a", "b"}, 2, "", "permissions takes one AGENT; use --via a for its ancestors\n"},
		{"history --help", []string{"history", "--help"}, 0, "usage: agentry history AGENT [flags]", ""},
		{"history -h lists --restore", []string{"history", "-h"}, 0, "  --restore HASH ", ""},
		{"history without an agent", []string{"history"}, 2, "", "agentry history: history takes one AGENT\n\nusage: agentry history AGENT [flags]"},
		{"eval --help", []string{"eval", "--help"}, 0, "usage: agentry eval SUITE [flags]", ""},
		{"eval -h lists --against", []string{"eval", "-h"}, 0, "  --against HASH ", ""},
		{"eval without a suite", []string{"eval"}, 2, "", "agentry eval: eval takes one SUITE: a file, or the name of one in the evals folder\n"},
		{"eval with two ways to say what to run", []string{"eval", "s", "--against", "abcd", "--agents", "x"}, 2, "", "agentry eval: --against and --agents are two ways to say what to run; give one\n"},
		{"run -h lists --replay", []string{"run", "-h"}, 0, "  --replay RUN_ID ", ""},
		{"run --version without --replay", []string{"run", "--version", "a=abcd"}, 2, "", "agentry run: --version and --live-tools go with --replay\n"},
		{"run --replay with a task", []string{"run", "--replay", "r1", "coord", "go"}, 2, "", "agentry run: run --replay takes no AGENT or TASK: it runs the recorded run's (got \"coord go\")\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := cli(t, nil, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d", code, c.code)
			}
			for _, w := range []struct{ got, want, stream string }{{out, c.stdout, "stdout"}, {errOut, c.stderr, "stderr"}} {
				if (w.want == "" && w.got != "") || !strings.Contains(w.got, w.want) {
					t.Errorf("%s = %q, want it to contain %q", w.stream, w.got, w.want)
				}
			}
			if strings.Contains(out+errOut, "got 1 arguments") || strings.Contains(out+errOut, "-modle") && !strings.Contains(out+errOut, "--modle") {
				t.Errorf("Go flag package grammar leaked: %q", out+errOut)
			}
		})
	}
}

func TestVersionPrintsTheModuleVersionAndCommit(t *testing.T) {
	code, out, errOut := cli(t, nil, "--version")
	if code != 0 || !strings.HasPrefix(out, "agentry ") || errOut != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	info := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/agentry/agentry", Version: "v0.4.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.time", Value: "2026-11-23T22:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := versionLine(info, true), "agentry v0.4.0 commit 0123abc (2026-11-23T22:00:00Z) with uncommitted changes, go1.26.0"; got != want {
		t.Fatalf("versionLine = %q, want %q", got, want)
	}
	info = &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}}
	if got, want := versionLine(info, true), "agentry (devel) (no VCS commit recorded), go1.26.0"; got != want {
		t.Fatalf("versionLine = %q, want %q", got, want)
	}
	version = "v1.2.0" // make build stamps it with -X main.version
	defer func() { version = "" }()
	if got, want := versionLine(info, true), "agentry v1.2.0, go1.26.0"; got != want {
		t.Fatalf("stamped versionLine = %q, want %q", got, want)
	}
}

func TestRunOfAnUnknownAgentSuggestsOneAndRecordsNothing(t *testing.T) {
	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "research-coordinator.md", "---\nname: research-coordinator\ndescription: Coordinates\n---\nYou coordinate.\n")
	writeFile(t, agents, "leaf.md", "---\nname: leaf\ndescription: Answers\n---\nYou answer.\n")
	db := filepath.Join(dir, "trace.db")
	env := []string{"AGENTRY_WORKSPACE=" + dir}
	code, out, errOut := cli(t, env, "run", "reserch-coordinator", "go", "--agents", agents, "--db", db)
	if want := "agentry: unknown agent \"reserch-coordinator\"; did you mean research-coordinator?\n"; code != 1 || errOut != want || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 1 and %q", code, out, errOut, want)
	}
	code, _, errOut = cli(t, env, "run", "zzz", "go", "--agents", agents, "--db", db)
	if want := "agentry: unknown agent \"zzz\" (agents: leaf, research-coordinator)\n"; code != 1 || errOut != want {
		t.Fatalf("exit %d, stderr %q; want %q", code, errOut, want)
	}
	code, out, _ = cli(t, env, "run", "zzz", "go", "--agents", agents, "--db", db, "--json")
	if code != 1 || !strings.Contains(out, `"run_id":"","status":"error","result":"","error":"unknown agent \"zzz\"`) {
		t.Fatalf("--json: exit %d, stdout %q", code, out)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Fatalf("a run that never started touched the trace database: %v", err)
	}
}

func TestRunOfABrokenAgentNamesTheFileLineAndReason(t *testing.T) {
	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "coord.md", "---\nname: coord\ndescription: Coordinates\nmax_turns: many\n---\nYou coordinate.\n")
	db := filepath.Join(dir, "trace.db")
	code, out, errOut := cli(t, []string{"AGENTRY_WORKSPACE=" + dir}, "run", "coord", "go", "--agents", agents, "--db", db)
	if code != 1 || out != "" || !strings.HasPrefix(errOut, "agentry: agent \"coord\" cannot run: its file is broken:\n  coord.md:4: ") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if strings.Contains(errOut, "unknown agent") {
		t.Fatalf("a broken file reported as an unknown agent: %q", errOut)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Fatalf("a run that never started touched the trace database: %v", err)
	}
}

func TestPermissionsSuggestsANameForATypo(t *testing.T) {
	agents := permissionsFixture(t)
	code, _, errOut := cli(t, nil, "permissions", "helpr", "--agents", agents)
	if want := "agentry: unknown agent \"helpr\"; did you mean helper?\n"; code != 1 || errOut != want {
		t.Fatalf("exit %d, stderr %q; want %q", code, errOut, want)
	}
	code, _, errOut = cli(t, nil, "permissions", "helper", "--via", "laed", "--agents", agents)
	if want := "agentry: unknown agent \"laed\"; did you mean lead?\n"; code != 1 || errOut != want {
		t.Fatalf("--via: exit %d, stderr %q; want %q", code, errOut, want)
	}
}

func TestRunOfADisabledAgentSaysWhyAndRecordsNothing(t *testing.T) {
	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "off.md", "---\nname: off\ndescription: Off\nenabled: false\n---\nYou rest.\n")
	writeFile(t, agents, "legacy-bot.md", "---\nname: legacy-bot\ndescription: Old\n---\nYou are old.\n")
	db := filepath.Join(dir, "trace.db")
	env := []string{"AGENTRY_WORKSPACE=" + dir, "AGENTRY_PERMISSIONS__DISABLED_AGENTS=legacy-*"}
	for name, want := range map[string]string{
		"off":        "agentry: agent \"off\" cannot run: denied by agent \"off\": ",
		"legacy-bot": "agentry: agent \"legacy-bot\" cannot run: denied by global: agent \"legacy-bot\" is disabled (disabled_agents \"legacy-*\")\n",
	} {
		code, _, errOut := cli(t, env, "run", name, "go", "--agents", agents, "--db", db)
		if code != 1 || !strings.HasPrefix(errOut, want) {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", name, code, errOut, want)
		}
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Fatalf("a run that never started touched the trace database: %v", err)
	}
}

func TestRunSaysWhichFileServesAnIdThatSeveralFilesDefine(t *testing.T) {
	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "coord.md", "---\nname: coord\ndescription: The first\n---\nYou coordinate.\n")
	writeFile(t, agents, "team/coord.md", "---\nname: coord\ndescription: The second\n---\nYou coordinate too.\n")
	db := filepath.Join(dir, "trace.db")
	want := "⚠ warning: 2 files define coord: using coord.md (its path sorts first and none of them served the id before); ignoring team/coord.md\n"
	code, out, errOut := cli(t, []string{"AGENTRY_WORKSPACE=" + dir}, "run", "coord", "go", "--agents", agents, "--db", db)
	if code != 0 || !strings.HasPrefix(out, want) {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s\nwant it to start with %q", code, errOut, out, want)
	}
	code, out, errOut = cli(t, []string{"AGENTRY_WORKSPACE=" + dir}, "run", "coord", "go", "--agents", agents, "--db", db, "--json")
	if code != 0 || errOut != want || !strings.HasPrefix(out, "{") {
		t.Fatalf("--json: exit %d, stdout %q, stderr %q; want the note on stderr", code, out, errOut)
	}
}

func TestRunByDisplayNamePointsToTheId(t *testing.T) {
	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "csharp-expert.agent.md", "---\nname: C# Expert\ndescription: Writes C#\n---\nYou write C#.\n")
	code, _, errOut := cli(t, []string{"AGENTRY_WORKSPACE=" + dir}, "run", "C# Expert", "go", "--agents", agents, "--db", filepath.Join(dir, "t.db"))
	if want := "agentry: unknown agent \"C# Expert\": that is the display name of csharp-expert; run it by its id\n"; code != 1 || errOut != want {
		t.Fatalf("exit %d, stderr %q; want %q", code, errOut, want)
	}
}

// TestEveryCommandHasHelp walks the command tree, as a user would meet it
// with `agentry help`, and asks every command for its usage both ways.
func TestEveryCommandHasHelp(t *testing.T) {
	s, _, _ := testSession()
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				walk(sub, append(slices.Clip(path), sub.Name()))
			}
		}
	}
	walk(s.rootCommand(), nil)
	if len(paths) < 25 {
		t.Fatalf("walked %d commands: %q", len(paths), paths)
	}
	for _, path := range paths {
		name := strings.Join(append([]string{"agentry"}, path...), " ")
		for _, args := range [][]string{append(slices.Clip(path), "--help"), append(slices.Clip(path), "-h"), append([]string{"help"}, path...)} {
			code, out, errOut := cli(t, nil, args...)
			if code != 0 || errOut != "" || !strings.HasPrefix(out, "usage: "+name) || !strings.Contains(out, "  -h, --help ") {
				t.Errorf("agentry %s: exit %d, stderr %q, stdout:\n%s", strings.Join(args, " "), code, errOut, out)
			}
		}
	}
	t.Logf("%d commands: %q", len(paths), paths)
}

// TestEveryFlagNamesItsValue: a flag that takes a value shows what the
// value is (--agents DIR, --shutdown-grace DURATION), never pflag's bare
// type name (--shutdown-grace string).
func TestEveryFlagNamesItsValue(t *testing.T) {
	s, _, _ := testSession()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Value.Type() == "bool" {
				return
			}
			if name, _ := pflag.UnquoteUsage(f); name == f.Value.Type() || name == "" {
				t.Errorf("%s --%s shows its value as %q: name it in its usage with `BACKQUOTES`", c.CommandPath(), f.Name, name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(s.rootCommand())
}

// TestCommandsWithoutArgumentsRefuseOneWithUsage: a word where none
// belongs is bad usage (exit 2, the command's usage), for every command
// that takes none, as DESIGN §8 has it.
func TestCommandsWithoutArgumentsRefuseOneWithUsage(t *testing.T) {
	for _, path := range []string{"version", "validate", "serve", "worker", "mcp", "approvals list", "plugins list", "skills list", "traces list"} {
		args := append(strings.Fields(path), "extra")
		code, out, errOut := cli(t, nil, args...)
		if code != 2 || !strings.Contains(errOut, path+" takes no arguments, got \"extra\"") || !strings.Contains(errOut, "usage: agentry "+path) {
			t.Errorf("agentry %s extra: exit %d, stdout %q, stderr %q; want 2 and the usage", path, code, out, errOut)
		}
	}
}

// A folder given with --agents that is not one is a configuration no
// command can use: every command that reads it exits 2 with one message.
func TestEveryCommandRefusesAMissingAgentsFolderWithExit2(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nosuch")
	db := filepath.Join(dir, "t.db")
	for _, args := range [][]string{
		{"validate"},
		{"permissions", "researcher"},
		{"run", "researcher", "a task", "--db", db},
		{"chat", "researcher", "--db", db},
		{"serve", "--addr", "127.0.0.1:0", "--db", db},
	} {
		s, out, errOut := testSession()
		args = append(args, "--agents", missing)
		code := s.main(context.Background(), args)
		if want := fmt.Sprintf("agents folder %q: not a readable folder: it does not exist here; create it, or name another with --agents DIR", missing); code != 2 || !strings.Contains(errOut.String(), want) {
			t.Errorf("%v: exit %d, want 2 and %q: %s %s", args, code, want, out, errOut)
		}
	}
	s, out, errOut := testSession() // so is a missing workflows folder to validate
	code := s.main(context.Background(), []string{"workflow", "validate", "--workflows", missing})
	if want := fmt.Sprintf("workflows folder %q: not a readable folder: it does not exist here; create it, or name another with --workflows DIR", missing); code != 2 || !strings.Contains(errOut.String(), want) {
		t.Errorf("workflow validate: exit %d, want 2 and %q: %s %s", code, want, out, errOut)
	}
}
