package shell

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/agentry/agentry/permissions"
)

// The differential check (DESIGN §12): for a command line, what the
// permission checker thinks will run (permissions.ParseCommand) must cover
// what bash really runs inside the sandbox, read from bash's own trace
// (set -x, written to BASH_XTRACEFD by a BASH_ENV prologue, so the line
// itself is run unchanged). A line the checker refuses is not run.

// traceSep starts each trace record (PS4): a control character that lines
// under test do not hold, so it only ever starts a record.
const traceSep = "\x1e"

// differ runs lines in one sandbox with bash's trace on.
type differ struct {
	s     *Shell
	trace string
}

func newDiffer(t testing.TB) *differ {
	t.Helper()
	ws := t.TempDir()
	trace := filepath.Join(ws, ".trace")
	prologue := filepath.Join(ws, ".xtrace.sh")
	if err := os.WriteFile(prologue, []byte("exec 9>>"+trace+"\nBASH_XTRACEFD=9\nPS4=$'"+`\x1e`+"'\nset -x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(Config{Workspace: ws, Home: t.TempDir(), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	s.testEnv = []string{"BASH_ENV=" + prologue}
	return &differ{s: s, trace: trace}
}

// check runs line when the checker accepts it and reports a command bash
// ran that the checker did not list; when every command of the line runs
// once (unconditional), also one the checker listed that bash did not run,
// unless bash itself reported an error (an ambiguous redirect, say).
func (d *differ) check(t testing.TB, line string) (accepted bool) {
	t.Helper()
	cmds, err := permissions.ParseCommand(line)
	if err != nil || strings.Contains(line, traceSep) { // the separator would be ambiguous in the trace
		return false
	}
	exact := unconditional(line)
	var want []string
	for _, c := range cmds {
		want = append(want, c.Assigns...)
		if len(c.Args) > 0 {
			want = append(want, strings.Join(c.Args, "\x00"))
		}
	}
	os.Remove(d.trace)
	res, err := d.s.Run(context.Background(), line, Options{})
	if err != nil {
		t.Fatalf("run %q: %v", line, err)
	}
	got := d.traced(t)
	missing := slices.Clone(want)
	for _, g := range got {
		i := slices.Index(missing, g)
		if i < 0 {
			t.Errorf("bash ran %q, which the checker did not see in %q (checker: %q; result %+v)", show(g), line, showAll(want), res)
			return true
		}
		missing = slices.Delete(missing, i, i+1)
	}
	bashRefused := strings.Contains(res.Stderr, "bash: line ") || strings.Contains(res.Stderr, "bash: -c: line ")
	if exact && len(missing) > 0 && !bashRefused {
		t.Errorf("the checker expected %q in %q, which bash did not run (bash ran %q; result %+v)", showAll(missing), line, showAll(got), res)
	}
	return true
}

// unconditional reports whether every command of line runs, whatever the
// others do: no &&, ||, background job, if or while, and no pipe (a side
// whose reader is gone dies of SIGPIPE before its next command).
func unconditional(line string) bool {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return false
	}
	exact := true
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryCmd:
			exact = false
		case *syntax.Stmt:
			exact = exact && !n.Background
		case *syntax.IfClause, *syntax.WhileClause:
			exact = false
		}
		return exact
	})
	return exact
}

// traced reads the trace: each record a simple command as bash ran it,
// its words joined by NUL (bash traces a prefix assignment as a record of
// its own).
func (d *differ) traced(t testing.TB) []string {
	t.Helper()
	b, err := os.ReadFile(d.trace)
	if err != nil {
		return nil
	}
	var out []string
	for _, rec := range strings.Split(string(b), traceSep) {
		rec = strings.TrimSuffix(rec, "\n")
		if rec == "" {
			continue
		}
		// Read as the arguments of ":", so that a program named like a
		// keyword ("do", which bash leaves unquoted) or an assignment
		// ("x=1") is a word; a prefix assignment, a record of its own,
		// reads as its one word too.
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(": "+rec), "")
		if err != nil || len(f.Stmts) != 1 {
			t.Fatalf("trace record %q: %v", rec, err)
		}
		call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
		if !ok {
			t.Fatalf("trace record %q is no simple command", rec)
		}
		var words []string
		for _, w := range call.Args[1:] {
			words = append(words, unquote(t, rec, w))
		}
		out = append(out, strings.Join(words, "\x00"))
	}
	return out
}

// unquote is the value of a word of bash's trace, which quotes every
// word that needs it: quote removal alone, with no pattern expanded.
func unquote(t testing.TB, rec string, w *syntax.Word) string {
	if w == nil {
		return ""
	}
	f, err := expand.Fields(&expand.Config{}, w)
	if err != nil || len(f) != 1 {
		t.Fatalf("trace record %q: word %v: %q, %v", rec, w, f, err)
	}
	return f[0]
}

func show(rec string) []string { return strings.Split(rec, "\x00") }

func showAll(recs []string) [][]string {
	out := make([][]string, len(recs))
	for i, r := range recs {
		out[i] = show(r)
	}
	return out
}

// differentialSeeds are lines that once fooled a hand-written splitter,
// and lines whose quoting, escapes and structure a parser must read as
// bash does. Each is checked exactly when flagged.
var differentialSeeds = []string{
	`echo \ #; id`,
	`echo \>& id`,
	`echo $'\'' ; id #'`,
	"echo x <<E\necho '\nE\nid\n#'",
	`echo ${x:=$'\x24\x28id\x29'} ${x@P}`,
	`git commit -m "a; b | c" -m 'x && y'`,
	`echo a\;b "c\"d\$e\\f\g" 'h'\''i' j\
k`,
	"X=1 Y='a b' true st; Z=2; true",
	"(true a && { true b; true c; }) | true d",
	"if true x; then true y; else true z; fi",
	"! true a || true b",
	"cat <<'EOF'\n$(id)\n`id`\nEOF\ntrue after",
	"cat <<EOF >/dev/null\nplain \\$(id) text\nEOF",
	"true a#b # comment; id\ntrue c",
	"[ -f go.mod ] || true d",
	"echo 'multi\nline' \"tab\there\"",
	"time true t",
	"true é ü\x01",
	"ls '0'>&--force",                              // bash closes stdout and passes -force on
	"true >&'$(id)'x; true",                        // bash expands a file name after >& again: id runs
	"PS4='$(id)'; set -x; true",                    // bash expands PS4 as a prompt: id runs
	"set -o history -H\ntrue hi\n!!:s/true hi/id/", // history expansion rewrites and re-runs a line
	"true a >&- b 2<&- 3>&1- 2>&1",
}

func TestTheCheckerSeesWhatBashRuns(t *testing.T) {
	d := newDiffer(t)
	accepted := 0
	for _, line := range differentialSeeds {
		if d.check(t, line) {
			accepted++
		}
	}
	if accepted < len(differentialSeeds)-6 { // refused: ANSI-C quoting, two prompt expansions, two >& targets, set -H
		t.Errorf("the checker accepted %d of %d seeds; the comparison ran on too few", accepted, len(differentialSeeds))
	}
}

// FuzzTheCheckerSeesWhatBashRuns runs arbitrary lines: whatever the
// checker accepts, bash must run nothing it did not see. Plain `go test`
// runs the seeds and a few generated lines.
func FuzzTheCheckerSeesWhatBashRuns(f *testing.F) {
	for _, line := range differentialSeeds {
		f.Add(line)
	}
	r := rand.New(rand.NewPCG(24, 12))
	for range 20 {
		f.Add(generateLine(r))
	}
	d := newDiffer(f)
	f.Fuzz(func(t *testing.T, line string) {
		d.check(t, line)
	})
}

// generateLine makes a random command line from pieces that stress how a
// line is read: quoting of every kind, escapes, comments, operators,
// grouping, here-documents and, now and then, expansions.
func generateLine(r *rand.Rand) string {
	g := &generator{r: r}
	return g.list(2)
}

type generator struct{ r *rand.Rand }

var (
	programs = []string{"true", "echo", "printf", "id", "git", "rm", "cat", "test", "[", "ls", "env", ":"}
	// plain are atoms bash reads literally wherever they stand.
	plain = []string{"a", "push", "--force", "-rf", "/", "x=1", "é", "a#b", "E", "-", ",", ".", "@", "+", ":", "%s", "0", "ab-c"}
	// special are atoms bash reads specially unless they are quoted.
	special = []string{"b c", "#", "#x", ";", "&", "&&", "|", "||", ">", "<", ">&", "2>&1", "$", "$x", "${x}", "$(id)", "`id`",
		"$((1))", "<(id)", "(", ")", "{", "}", "{a,b}", "*", "?", "[ab]", "~", "~/x", "!", "'", "\"", "\\", "\n", "\t", " ", "=",
		"-v", "\x01", "\\n", "$'x'", "$\"x\"", "'E'"}
)

func (g *generator) pick(list []string) string { return list[g.r.IntN(len(list))] }

// list is commands joined by operators, some grouped.
func (g *generator) list(depth int) string {
	var b strings.Builder
	for i := range 1 + g.r.IntN(3) {
		if i > 0 {
			b.WriteString(g.pick([]string{"; ", " && ", " | ", "\n", " || ", " & ", " |& "}))
		}
		b.WriteString(g.command(depth))
	}
	return b.String()
}

func (g *generator) command(depth int) string {
	switch k := g.r.IntN(20); {
	case depth > 0 && k == 0:
		return "( " + g.list(depth-1) + " )"
	case depth > 0 && k == 1:
		return "{ " + g.list(depth-1) + "; }"
	case depth > 0 && k == 2:
		return "if " + g.list(depth-1) + "; then " + g.list(depth-1) + "; fi"
	case k == 3:
		return "! " + g.simple()
	case k == 4:
		body := g.word() + "\n" + g.word()
		if g.r.IntN(2) == 0 {
			return "cat <<'E' >/dev/null\n" + body + "\nE"
		}
		return "cat <<E >/dev/null\n" + body + "\nE"
	}
	return g.simple()
}

func (g *generator) simple() string {
	words := []string{g.pick(programs)}
	if g.r.IntN(6) == 0 {
		words = append([]string{"V=" + g.word()}, words...)
	}
	for range g.r.IntN(4) {
		words = append(words, g.word())
	}
	if g.r.IntN(5) == 0 {
		words = append(words, ">/dev/null")
	}
	return strings.Join(words, " ")
}

// word is one word made of a few atoms, each quoted one way or another. A
// special atom left unquoted may end the word or the command, or expand.
func (g *generator) word() string {
	var b strings.Builder
	for range 1 + g.r.IntN(3) {
		a, raw := g.pick(plain), true
		if g.r.IntN(10) < 3 {
			a, raw = g.pick(special), g.r.IntN(4) == 0
		}
		switch q := g.r.IntN(5); {
		case raw && q < 2:
			b.WriteString(a)
		case q == 2:
			b.WriteString(`"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(a) + `"`)
		case q == 3:
			for _, c := range a {
				b.WriteString(`\` + string(c))
			}
		default:
			b.WriteString("'" + strings.ReplaceAll(a, "'", `'\''`) + "'")
		}
	}
	return b.String()
}
