package permissions

import (
	"slices"
	"strings"
	"testing"
)

func TestCommand(t *testing.T) {
	gitOnly := Level{Name: "coder", Rules: Rules{Allow: []string{"shell.run(git *)", "filesystem"}}}
	tests := []struct {
		name    string
		chain   []Level
		command string
		want    bool
	}{
		{"an allow pattern admits a matching command", []Level{gitOnly}, "git status", true},
		{"a bare command matches its pattern with arguments", []Level{gitOnly}, "git", true},
		{"a command the pattern does not match is denied", []Level{gitOnly}, "rm -rf /", false},
		{"a prefix without a word break does not match", []Level{gitOnly}, "gitx status", false},
		{"a compound command needs every part to match", []Level{gitOnly}, "git status; rm -rf /", false},
		{"a compound of matching parts is allowed", []Level{gitOnly}, "git add . && git commit -m 'x; y'", true},
		{"a pipe into another program is denied", []Level{gitOnly}, "git log | sh", false},
		{"command substitution is denied", []Level{gitOnly}, "git log $(rm -rf /)", false},
		{"backticks are denied", []Level{gitOnly}, "git log `id`", false},
		{"the Claude Code colon form works", []Level{{Name: "a", Rules: Rules{Allow: []string{"shell.run(npm run test:*)"}}}}, "npm run test -- --watch", true},
		{"the plain tool allows any command", []Level{{Name: "a", Rules: Rules{Allow: []string{"shell.run", "shell.run(git *)"}}}}, "rm x", true},
		{"no allow list lets commands through", []Level{{Name: "global"}}, "anything", true},
		{"a deny pattern wins over the plain tool", []Level{{Name: "global", Rules: Rules{Allow: []string{"*"}, Deny: []string{"shell.run(rm *)"}}}}, "rm -rf /", false},
		{"a deny pattern matches any part of a compound", []Level{{Name: "global", Rules: Rules{Deny: []string{"shell.run(rm *)"}}}}, "ls && rm -rf /", false},
		{"a deny pattern sees through a path", []Level{{Name: "global", Rules: Rules{Deny: []string{"shell.run(rm *)"}}}}, "/bin/rm -rf /", false},
		{"a deny pattern sees through sudo and assignments", []Level{{Name: "global", Rules: Rules{Deny: []string{"shell.run(rm *)"}}}}, "X=1 sudo rm -rf /", false},
		{"a deny pattern sees through a keyword", []Level{{Name: "global", Rules: Rules{Deny: []string{"shell.run(rm *)"}}}}, "if true; then rm -rf /; fi", false},
		{"an unresolvable line is denied under a deny pattern", []Level{{Name: "global", Rules: Rules{Deny: []string{"shell.run(rm *)"}}}}, "echo $(ls)", false},
		{"a deny pattern sees through quotes", []Level{{Name: "global", Rules: Rules{Deny: []string{"shell.run(rm *)"}}}}, "r''m -rf x", false},
		{"a deny pattern sees inside a subshell", []Level{{Name: "global", Rules: Rules{Deny: []string{"shell.run(rm *)"}}}}, "(cd x && rm -rf y)", false},
		{"eval is denied under a deny pattern", []Level{{Name: "global", Rules: Rules{Deny: []string{"shell.run(rm *)"}}}}, "eval 'rm -rf x'", false},
		{"a quoted word is matched without its quotes", []Level{gitOnly}, "git 'status'", true},
		{"a word holding a space is not two words", []Level{gitOnly}, "'git status'", false},
		{"a glob pattern before the argument allows nothing", []Level{{Name: "a", Rules: Rules{Allow: []string{"*(git *)"}}}}, "git status", false},
		{"a group before the argument allows nothing", []Level{{Name: "a", Rules: Rules{Allow: []string{"shell(git *)"}}}}, "git status", false},
		{"a deny pattern leaves other commands alone", []Level{{Name: "global", Rules: Rules{Deny: []string{"shell.run(rm *)"}}}}, "ls -la", true},
		{"deny wins over allow at the same level", []Level{{Name: "a", Rules: Rules{Allow: []string{"shell.run(git *)"}, Deny: []string{"shell.run(git push *)"}}}}, "git push origin", false},
		{"every level of the chain must admit it", []Level{{Name: "global", Rules: Rules{Allow: []string{"shell.run(git *)"}}}, {Name: "a", Rules: Rules{Allow: []string{"shell.run(git log*)"}}}}, "git status", false},
		{"a plain deny of the tool denies every command", []Level{{Name: "a", Rules: Rules{Deny: []string{"shell"}}}}, "ls", false},
		{"an empty command is denied under a command pattern", []Level{gitOnly}, "  ", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Command(tt.chain, "shell.run", tt.command)
			if d.Allowed != tt.want || d.Reason == "" {
				t.Fatalf("Command(%q) = %+v; want allowed %v with a reason", tt.command, d, tt.want)
			}
		})
	}
}

func TestCommandPatternsAtToolLevel(t *testing.T) {
	chain := []Level{
		{Name: "global", Rules: Rules{Allow: []string{"*"}, Deny: []string{"shell.run(rm *)"}}},
		{Name: "coder", Rules: Rules{Allow: []string{"shell.run(git *)"}}},
	}
	if d := Tool(chain, "shell.run"); !d.Allowed || d.Pattern != "shell.run(git *)" {
		t.Errorf("Tool(shell.run) = %+v; want allowed by the command pattern", d)
	}
	if d := Tool(chain, "web.fetch"); d.Allowed {
		t.Errorf("Tool(web.fetch) = %+v; want denied: only shell.run is allowed", d)
	}
	var got []string
	for _, d := range Tools(chain, []string{"shell.run", "web.fetch"}) {
		if d.Allowed {
			got = append(got, d.Subject)
		}
	}
	if !slices.Equal(got, []string{"shell.run"}) {
		t.Errorf("allowed = %q; want [shell.run]: a command deny pattern must not hide the tool", got)
	}
}

func TestGrant(t *testing.T) {
	tests := []struct {
		name  string
		chain []Level
		want  bool
	}{
		{"a star does not grant network", []Level{{Name: "global", Rules: Rules{Allow: []string{"*"}}}}, false},
		{"a group does not grant network", []Level{{Name: "a", Rules: Rules{Allow: []string{"shell"}}}}, false},
		{"an exact name grants it", []Level{{Name: "global", Rules: Rules{Allow: []string{"*"}}}, {Name: "a", Rules: Rules{Allow: []string{"shell.run", "shell.network"}}}}, true},
		{"a level that does not allow it takes it away", []Level{{Name: "global", Rules: Rules{Allow: []string{"shell.network"}}}, {Name: "a", Rules: Rules{Allow: []string{"shell.run"}}}}, false},
		{"a deny wins", []Level{{Name: "global", Rules: Rules{Allow: []string{"shell.network"}, Deny: []string{"shell.network"}}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := Grant(tt.chain, "shell.network"); d.Allowed != tt.want || d.Reason == "" {
				t.Fatalf("Grant = %+v; want %v", d, tt.want)
			}
		})
	}
}

// The command lines that ran `id` under an agent allowed only
// shell.run(echo *) while permissions split lines by hand (issue 24).
var issueAttacks = []string{
	`echo \ #; id`,
	`echo \>& id`,
	`echo $'\'' ; id #'`,
	"echo x <<E\necho '\nE\nid\n#'",
	`echo ${x:=$'\x24\x28id\x29'} ${x@P}`,
}

func TestCommandRefusesWhatTheHandSplitterMisread(t *testing.T) {
	echo := []Level{{Name: "global", Rules: Rules{Allow: []string{"*"}}}, {Name: "echoer", Rules: Rules{Allow: []string{"shell.run(echo *)"}}}}
	for _, line := range issueAttacks {
		if d := Command(echo, "shell.run", line); d.Allowed || d.Reason == "" {
			t.Errorf("Command(%q) = %+v; want denied with a reason", line, d)
		}
	}
	push := strings.NewReplacer("id", "git push --force origin")
	ask := []Level{{Name: "global", Rules: Rules{Ask: []string{"shell.run(git push *)"}}}}
	deny := []Level{{Name: "global", Rules: Rules{Deny: []string{"shell.run(git push *)"}}}}
	for _, attack := range issueAttacks {
		line := push.Replace(attack)
		if d, ok := Call(ask, "shell.run", line, true); !ok || !d.Ask {
			t.Errorf("Call(%q) = %+v, %v; want it to ask", line, d, ok)
		}
		if d := Command(deny, "shell.run", line); d.Allowed {
			t.Errorf("Command(%q) under a deny pattern = %+v; want denied", line, d)
		}
	}
}

func TestACommandPatternOnlyRestrictsItsOwnTool(t *testing.T) {
	star := []Level{{Name: "a", Rules: Rules{Allow: []string{"*(git *)"}}}}
	if d := Tool(star, "web.fetch"); d.Allowed {
		t.Errorf("Tool(web.fetch) under *(git *) = %+v; want denied: the pattern names no tool", d)
	}
	fetchArg := []Level{{Name: "a", Rules: Rules{Allow: []string{"web.fetch(x)"}}}}
	if d := WithoutArgument(fetchArg, "web.fetch"); d.Allowed || !strings.Contains(d.Reason, "takes no argument") {
		t.Errorf("WithoutArgument under web.fetch(x) = %+v; want denied with the reason", d)
	}
	both := []Level{{Name: "a", Rules: Rules{Allow: []string{"web.fetch(x)", "web"}}}}
	if d := WithoutArgument(both, "web.fetch"); !d.Allowed {
		t.Errorf("WithoutArgument with the group allowed too = %+v; want allowed", d)
	}
	for p, bad := range map[string]bool{"*(git *)": true, "shell(git *)": true, "shell.*(x)": true, "shell.run(git *)": false, "web": false} {
		if got := ValidArgumentPattern(p) != ""; got != bad {
			t.Errorf("ValidArgumentPattern(%q) = %q; want a problem: %v", p, ValidArgumentPattern(p), bad)
		}
	}
}

func TestCovers(t *testing.T) {
	for _, c := range []struct {
		pattern, name, arg string
		hasArg, want       bool
	}{
		{"shell.run", "shell.run", "ls", true, true},
		{"shell", "shell.run", "ls", true, true},
		{"shell.run(git push *)", "shell.run", "git push origin", true, true},
		{"shell.run(git push *)", "shell.run", "git status; sudo git push", true, true},
		{"shell.run(git push *)", "shell.run", "git status", true, false},
		{"shell.run(git push *)", "shell.run", "eval $X", true, true}, // cannot be read
		{"shell.run(git push *)", "web.fetch", "git push", true, false},
		{"web.fetch(x)", "web.fetch", "", false, false},
	} {
		if got := Covers(c.pattern, c.name, c.arg, c.hasArg); got != c.want {
			t.Errorf("Covers(%q, %q, %q) = %v, want %v", c.pattern, c.name, c.arg, got, c.want)
		}
	}
}
