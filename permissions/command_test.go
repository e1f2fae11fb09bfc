package permissions

import (
	"errors"
	"slices"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		name, line string
		want       []string
		unsure     bool
	}{
		{"a plain command is one", "git status", []string{"git status"}, false},
		{"semicolons split", "git status; rm -rf /", []string{"git status", "rm -rf /"}, false},
		{"and-and and or-or split", "make && make test || echo no", []string{"make", "make test", "echo no"}, false},
		{"pipes split", "git log | head -5", []string{"git log", "head -5"}, false},
		{"a background ampersand splits", "sleep 1 & rm x", []string{"sleep 1", "rm x"}, false},
		{"newlines split", "ls\nrm x", []string{"ls", "rm x"}, false},
		{"redirections are not separators", "git log 2>&1 &>out", []string{"git log 2>&1 &>out"}, false},
		{"quoted separators stay", `git commit -m "a; b | c" -m 'x && y'`, []string{`git commit -m "a; b | c" -m 'x && y'`}, false},
		{"an escaped separator stays", `echo a\;b`, []string{`echo a\;b`}, false},
		{"a comment is dropped", "git status # ; rm -rf /\nls", []string{"git status", "ls"}, false},
		{"a hash inside a word is no comment", "echo a#b", []string{"echo a#b"}, false},
		{"backticks are unsure", "git `rm -rf /`", nil, true},
		{"dollar-paren is unsure", "git $(rm -rf /)", nil, true},
		{"dollar-paren in double quotes is unsure", `git "$(rm -rf /)"`, nil, true},
		{"a subshell is unsure", "(rm -rf /)", nil, true},
		{"process substitution is unsure", "diff <(ls) x", nil, true},
		{"an open quote is unsure", `git "status`, nil, true},
		{"dollar-paren in single quotes is text", `echo '$(x)'`, []string{`echo '$(x)'`}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SplitCommand(tt.line)
			if tt.unsure {
				if !errors.Is(err, ErrUnsplittable) {
					t.Fatalf("SplitCommand(%q) = %q, %v; want ErrUnsplittable", tt.line, got, err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("SplitCommand(%q) = %q, %v; want %q", tt.line, got, err, tt.want)
			}
		})
	}
}

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
		{"an unsplittable line is denied under a deny pattern", []Level{{Name: "global", Rules: Rules{Deny: []string{"shell.run(rm *)"}}}}, "echo $(ls)", false},
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
