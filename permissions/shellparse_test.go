package permissions

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseCommand(t *testing.T) {
	tests := []struct {
		name, line string
		want       []string // each simple command as SimpleCommand.String renders it
		refused    string   // part of the reason when the line cannot be resolved
	}{
		{name: "a plain command is one", line: "git status", want: []string{"git status"}},
		{name: "semicolons split", line: "git status; rm -rf /", want: []string{"git status", "rm -rf /"}},
		{name: "and-and and or-or split", line: "make && make test || echo no", want: []string{"make", "make test", "echo no"}},
		{name: "pipes split", line: "git log | head -5", want: []string{"git log", "head -5"}},
		{name: "a background ampersand splits", line: "sleep 1 & rm x", want: []string{"sleep 1", "rm x"}},
		{name: "newlines split", line: "ls\nrm x", want: []string{"ls", "rm x"}},
		{name: "redirections are no words", line: "git log 2>&1 &>out", want: []string{"git log"}},
		{name: "quoted separators stay", line: `git commit -m "a; b | c" -m 'x && y'`, want: []string{`git commit -m 'a; b | c' -m 'x && y'`}},
		{name: "an escaped separator stays", line: `echo a\;b`, want: []string{`echo 'a;b'`}},
		{name: "a comment is dropped", line: "git status # ; rm -rf /\nls", want: []string{"git status", "ls"}},
		{name: "a hash inside a word is no comment", line: "echo a#b", want: []string{"echo a#b"}},
		{name: "quotes are removed", line: `g''it "st"atus`, want: []string{"git status"}},
		{name: "double quotes keep backslashes that quote nothing", line: `echo "a\"b\$c\\d\e"`, want: []string{`echo 'a"b$c\d\e'`}},
		{name: "an escaped space hides no comment", line: `echo \ #; id`, want: []string{"echo ' #'", "id"}},
		{name: "an escaped redirection is a word", line: `echo \>& id`, want: []string{"echo '>'", "id"}},
		{name: "a here-document body is no command", line: "echo x <<E\necho '\nE\nid\n#'", want: []string{"echo x", "id"}},
		{name: "a quoted here-document holds text", line: "cat <<'EOF'\n$(id)\nEOF", want: []string{"cat"}},
		{name: "a plain here-document is allowed", line: "cat <<EOF > notes.txt\nhello 'world'\nEOF", want: []string{"cat"}},
		{name: "a subshell's commands are read", line: "(cd sub && make)", want: []string{"cd sub", "make"}},
		{name: "if and while are read", line: "if test -f x; then rm x; else touch x; fi; while false; do ls; done", want: []string{"test -f x", "rm x", "touch x", "false", "ls"}},
		{name: "assignments come first", line: "GOOS=linux go build ./...", want: []string{"GOOS=linux go build ./..."}},
		{name: "a test bracket is no pattern", line: "[ -f go.mod ] && go test", want: []string{"[ -f go.mod ]", "go test"}},
		{name: "a word with = in the program position is quoted", line: "'a=b' c", want: []string{"'a=b' c"}},
		{name: "single quotes keep dollars", line: `echo '$(x)'`, want: []string{"echo '$(x)'"}},
		{name: "a tilde inside a word is text", line: "echo a~b", want: []string{"echo a~b"}},
		{name: "a quoted glob is text", line: "find . -name '*.go'", want: []string{"find . -name *.go"}},

		{name: "backticks are refused", line: "git `rm -rf /`", refused: "command substitution"},
		{name: "dollar-paren is refused", line: "git $(rm -rf /)", refused: "command substitution"},
		{name: "dollar-paren in double quotes is refused", line: `git "$(rm -rf /)"`, refused: "command substitution"},
		{name: "a parameter is refused", line: "rm $X", refused: "parameter expansion of X"},
		{name: "prompt expansion is refused", line: `echo ${x:=$'\x24\x28id\x29'} ${x@P}`, refused: "parameter expansion"},
		{name: "ANSI-C quoting is refused", line: `echo $'\'' ; id #'`, refused: "ANSI-C quoting"},
		{name: "arithmetic is refused", line: "echo $((1+2))", refused: "arithmetic expansion"},
		{name: "process substitution is refused", line: "diff <(ls) x", refused: "process substitution"},
		{name: "an expanding here-document is refused", line: "cat <<EOF\n$(id)\nEOF", refused: "here-document"},
		{name: "an open quote is refused", line: `git "status`, refused: "bash syntax"},
		{name: "a glob is refused", line: "rm *.o", refused: "pathname expansion"},
		{name: "a bracket glob is refused", line: "rm x[ab]", refused: "pathname expansion"},
		{name: "a brace expansion is refused", line: "{rm,-rf,x}", refused: "brace expansion"},
		{name: "a tilde is refused", line: "cat ~/.ssh/id_rsa", refused: "tilde expansion"},
		{name: "a tilde after = is refused", line: "PATH=~/bin:/bin ls", refused: "tilde expansion"},
		{name: "eval is refused", line: "eval 'id'", refused: "the builtin eval"},
		{name: "eval behind command is refused", line: "command -p eval id", refused: "the builtin eval"},
		{name: "source is refused", line: ". ./env.sh", refused: "the builtin ."},
		{name: "trap is refused", line: "trap id EXIT", refused: "the builtin trap"},
		{name: "alias is refused", line: "alias ls=id", refused: "the builtin alias"},
		{name: "export is refused", line: "export PATH=.", refused: "the builtin export"},
		{name: "printf -v is refused", line: "printf -v 'a[$(id)]' x", refused: "printf -v"},
		{name: "test -v is refused", line: "[ -v 'a[$(id)]' ]", refused: "-v"},
		{name: "a function is refused", line: "git() { id; }; git status", refused: "function definition"},
		{name: "a for loop is refused", line: "for f in a b; do rm x; done", refused: "for or select loop"},
		{name: "[[ is refused", line: "[[ a == b ]]", refused: "[[ … ]]"},
		{name: "a prompt that runs code is refused", line: "PS4='$(id)'; set -x; true", refused: "an assignment to PS4"},
		{name: "a start-up file is refused", line: "BASH_ENV=./x bash -c true", refused: "an assignment to BASH_ENV"},
		{name: "an array assignment is refused", line: "a[1]=x", refused: "array assignment"},
		{name: "a named descriptor is refused", line: "exec {fd}>x", refused: "named file descriptor"},
		{name: "text glued to a closing redirection is refused", line: "ls >&--force", refused: "must be a file descriptor or -"},
		{name: "a file name after >& is refused", line: "ls >&'$(id)'", refused: "quoted target of >&"},
		{name: "an unquoted file name after >& is refused", line: "ls >&out.txt", refused: "write &> to redirect to a file"},
		{name: "closing and moving descriptors are allowed", line: "ls >&- 2<&- 3>&1- 2>&1", want: []string{"ls"}},
		{name: "a trailing backslash is refused", line: `rm -rf /\`, refused: "backslash at the end"},
		{name: "history expansion is refused", line: "set -o history -H\necho hi\n!!:s/echo hi/id/", refused: "the builtin set -o"},
		{name: "set -k is refused", line: "set -k; git status LD_PRELOAD=./x.so", refused: "the builtin set -k"},
		{name: "plain set options are allowed", line: "set -euxo pipefail; set +e -- a b", want: []string{"set -euxo pipefail", "set +e -- a b"}},
		{name: "a locale for the rest of the line is refused", line: "LC_ALL=zh_TW.BIG5; true", refused: "an assignment to LC_ALL"},
		{name: "a locale for one command is allowed", line: "LC_ALL=C sort x", want: []string{"LC_ALL=C sort x"}},
		{name: "a carriage return is refused", line: "rm\r-rf\r/", refused: "carriage return"},
		{name: "a NUL byte is refused", line: "echo a\x00b", refused: "NUL"},
		{name: "invalid UTF-8 is refused", line: "echo \xff", refused: "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmds, err := ParseCommand(tt.line)
			if tt.refused != "" {
				if !errors.Is(err, ErrUnresolvable) || !strings.Contains(err.Error(), tt.refused) {
					t.Fatalf("ParseCommand(%q) = %q, %v; want ErrUnresolvable naming %q", tt.line, cmds, err, tt.refused)
				}
				return
			}
			var got []string
			for _, c := range cmds {
				got = append(got, c.String())
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("ParseCommand(%q) = %q, %v; want %q", tt.line, got, err, tt.want)
			}
		})
	}
}
