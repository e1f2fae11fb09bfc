package permissions

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Reading a command line (DESIGN §12). A command pattern is decided on what
// bash will run, so the line is parsed by a real bash parser
// (mvdan.cc/sh/v3/syntax, the parser of shfmt) and every simple command is
// reduced to the literal words bash will execute. Whatever the parser
// cannot reduce to literals is refused with the reason, never guessed at:
// expansions ($x, ${x@P}, $(…), `…`, $((…)), <(…)), ANSI-C and locale
// quoting ($'…', $"…"), tilde, brace and pathname expansion, compound
// commands that bind names or evaluate (for, case, select, ((…)), [[…]],
// function definitions, declare and its kin, let, coproc), builtins that
// run code or evaluate their arguments (eval, source, trap, alias, enable,
// …), and whatever makes bash read later lines differently (set -H, set
// -k, a locale assigned for the rest of the line, PS4). Lists, pipelines,
// negation, background jobs, { … }, ( … ), if, while, until and time are
// kept: each command inside them is checked as if it stood alone.
// Redirections must have literal targets (a file descriptor or - after
// <& and >&, where bash reads a file name twice); a here-document is
// allowed when its body holds no expansion. The differential test in
// delegation/tool/shell holds this reading against bash itself.

// ErrUnresolvable is wrapped by ParseCommand for a command line whose
// commands cannot all be reduced to literal words.
var ErrUnresolvable = errors.New("cannot resolve command")

// SimpleCommand is one simple command of a command line as bash will run
// it: its prefix assignments (NAME=value) and its words, program first,
// every one a literal.
type SimpleCommand struct {
	Assigns []string
	Args    []string
}

// String is the text command patterns are matched against: the
// assignments and words separated by single spaces, each word quoted only
// where it holds a blank, a quote or a character that ends a word, so that
// `git 'status'` reads "git status" and a word with a space stays one word
// ("git commit -m 'a b'").
func (c SimpleCommand) String() string {
	var b strings.Builder
	for _, a := range c.Assigns {
		b.WriteString(a)
		b.WriteByte(' ')
	}
	for i, w := range c.Args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(render(w, i == 0))
	}
	return strings.TrimSuffix(b.String(), " ")
}

// render writes one word for matching: as it is when every character is
// plain, else single-quoted (or $'…' for control characters).
func render(w string, program bool) string {
	if w != "" && strings.IndexFunc(w, func(r rune) bool { return !plainRune(r) || program && r == '=' }) < 0 {
		return w
	}
	if strings.IndexFunc(w, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0 {
		if q, err := syntax.Quote(w, syntax.LangBash); err == nil {
			return q
		}
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// plainRune reports whether r needs no quoting in a rendered word: only
// blanks, quotes, backslashes and the characters that end a word or start
// an expansion do, so that a rendered command reads as typed.
func plainRune(r rune) bool {
	return r > ' ' && r != 0x7f && !strings.ContainsRune("'\"\\`$;&|<>()", r)
}

// ParseCommand parses a bash command line into the simple commands it may
// run, in the order they appear. An error wrapping ErrUnresolvable says
// what could not be resolved, and where.
func ParseCommand(line string) ([]SimpleCommand, error) {
	switch {
	case !utf8.ValidString(line):
		return nil, unresolvable("the line is not valid UTF-8")
	case strings.IndexByte(line, 0) >= 0:
		return nil, unresolvable("the line holds a NUL byte")
	case strings.IndexByte(line, '\r') >= 0:
		return nil, unresolvable("the line holds a carriage return, which bash reads as part of a word and the parser as a blank")
	}
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(line), "")
	parsers.Put(p)
	if err != nil {
		return nil, unresolvable("bash syntax: " + err.Error())
	}
	var r resolver
	if err := r.stmts(f.Stmts); err != nil {
		return nil, err
	}
	return r.cmds, nil
}

// parsers are reused: a Parser is not safe for concurrent use, and making
// one allocates its buffers.
var parsers = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))
}}

// resolver walks a parsed line, collecting its simple commands.
type resolver struct{ cmds []SimpleCommand }

func (r *resolver) stmts(ss []*syntax.Stmt) error {
	for _, s := range ss {
		if err := r.stmt(s); err != nil {
			return err
		}
	}
	return nil
}

func (r *resolver) stmt(s *syntax.Stmt) error {
	if s.Coprocess || s.Disown {
		return refuse(s.Pos(), "a coprocess")
	}
	for _, rd := range s.Redirs {
		if err := redirect(rd); err != nil {
			return err
		}
	}
	switch c := s.Cmd.(type) {
	case nil: // redirections alone, such as "> file"
		return nil
	case *syntax.CallExpr:
		return r.call(c)
	case *syntax.BinaryCmd: // && || | |&
		if err := r.stmt(c.X); err != nil {
			return err
		}
		return r.stmt(c.Y)
	case *syntax.Block:
		return r.stmts(c.Stmts)
	case *syntax.Subshell:
		return r.stmts(c.Stmts)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			if err := r.stmts(c.Cond); err != nil {
				return err
			}
			if err := r.stmts(c.Then); err != nil {
				return err
			}
		}
		return nil
	case *syntax.WhileClause:
		if err := r.stmts(c.Cond); err != nil {
			return err
		}
		return r.stmts(c.Do)
	case *syntax.TimeClause:
		if c.Stmt == nil {
			return nil
		}
		return r.stmt(c.Stmt)
	}
	return refuse(s.Cmd.Pos(), compoundName(s.Cmd))
}

// compoundName names a compound command the resolver refuses.
func compoundName(c syntax.Command) string {
	switch c := c.(type) {
	case *syntax.ForClause:
		return "a for or select loop (it binds a variable)"
	case *syntax.CaseClause:
		return "a case statement"
	case *syntax.FuncDecl:
		return "a function definition"
	case *syntax.ArithmCmd:
		return "an arithmetic command ((…))"
	case *syntax.TestClause:
		return "a [[ … ]] test (it evaluates arithmetic and patterns)"
	case *syntax.DeclClause:
		return "the builtin " + c.Variant.Value + " (it evaluates names and values)"
	case *syntax.LetClause:
		return "the builtin let (it evaluates arithmetic)"
	case *syntax.CoprocClause:
		return "a coprocess"
	}
	return fmt.Sprintf("a %T", c)
}

// call resolves one simple command.
func (r *resolver) call(c *syntax.CallExpr) error {
	var sc SimpleCommand
	for _, a := range c.Assigns {
		s, err := assignment(a)
		if err != nil {
			return err
		}
		if name := a.Name.Value; len(c.Args) == 0 && (readingVariables[name] || strings.HasPrefix(name, "LC_")) {
			return refuse(a.Pos(), "an assignment to "+name+", which changes how bash reads the lines after it")
		}
		sc.Assigns = append(sc.Assigns, s)
	}
	for _, w := range c.Args {
		s, err := literal(w)
		if err != nil {
			return err
		}
		sc.Args = append(sc.Args, s)
	}
	if why := evaluatingCall(sc.Args); why != "" {
		return refuse(c.Pos(), why)
	}
	r.cmds = append(r.cmds, sc)
	return nil
}

// assignment resolves NAME=value; arrays, indexes and += are refused.
func assignment(a *syntax.Assign) (string, error) {
	switch {
	case a.Name == nil || a.Naked:
		return "", refuse(a.Pos(), "an assignment without a name")
	case a.Index != nil || a.Array != nil:
		return "", refuse(a.Pos(), "an array assignment (its index is evaluated)")
	case a.Append:
		return "", refuse(a.Pos(), "an appending assignment (+=)")
	}
	if why, ok := codeVariables[a.Name.Value]; ok {
		return "", refuse(a.Pos(), "an assignment to "+a.Name.Value+", "+why)
	}
	v := ""
	if a.Value != nil {
		var err error
		if v, err = word(a.Value, true); err != nil {
			return "", err
		}
	}
	return a.Name.Value + "=" + v, nil
}

// codeVariables are the variables whose value bash runs as code: the
// prompts, which bash expands (PS4 at every traced command, command
// substitutions included), and the files a shell runs as it starts.
var codeVariables = map[string]string{
	"PS0": "which bash expands as a prompt", "PS1": "which bash expands as a prompt", "PS2": "which bash expands as a prompt",
	"PS3": "which bash expands as a prompt", "PS4": "which bash expands as a prompt at every traced command",
	"PROMPT_COMMAND": "which bash runs as a command", "BASH_ENV": "which a starting bash runs", "ENV": "which a starting shell runs",
}

// readingVariables change how bash reads the lines after an assignment
// that stands alone (the locale decides which bytes are characters;
// POSIXLY_CORRECT and BASH_COMPAT change the grammar); before a command,
// they apply to it alone.
var readingVariables = map[string]bool{"LANG": true, "POSIXLY_CORRECT": true, "BASH_COMPAT": true}

// redirect checks a redirection: a literal target, a plain file
// descriptor, and a here-document body without expansions.
func redirect(rd *syntax.Redirect) error {
	if rd.N != nil && strings.Trim(rd.N.Value, "0123456789") != "" {
		return refuse(rd.Pos(), "a redirection to a named file descriptor {"+rd.N.Value+"}")
	}
	if rd.Word != nil && rd.Hdoc == nil {
		target, err := literal(rd.Word)
		if err != nil {
			return err
		}
		if rd.Op == syntax.DplIn || rd.Op == syntax.DplOut {
			if err := duplication(rd, target); err != nil {
				return err
			}
		}
	}
	if rd.Hdoc != nil {
		for _, p := range rd.Hdoc.Parts {
			if _, ok := p.(*syntax.Lit); !ok {
				return refuse(p.Pos(), "an expansion in a here-document ("+partName(p)+")")
			}
		}
	}
	return nil
}

// duplication checks the target of <& or >&, which must be a file
// descriptor (2>&1), one moved (3>&1-) or "-" (close). bash reads other
// targets unlike any parser: a "-" right after the operator is a token of
// its own, so ">&--force" closes stdout and passes -force on as an
// argument; and a file name there is expanded a second time, so
// ">&'$(id)'" runs id although it is quoted.
func duplication(rd *syntax.Redirect, target string) error {
	lit, ok := rd.Word.Parts[0].(*syntax.Lit)
	switch fd := strings.TrimSuffix(target, "-"); {
	case !ok || len(rd.Word.Parts) > 1:
		return refuse(rd.Pos(), "a quoted target of "+rd.Op.String()+" (bash expands it again)")
	case target == "-" && lit.Value == "-":
		return nil
	case fd != "" && strings.Trim(fd, "0123456789") == "" && lit.Value == target:
		return nil
	}
	return refuse(rd.Pos(), fmt.Sprintf("%s%s: the target of %s must be a file descriptor or -; write &> to redirect to a file", rd.Op, target, rd.Op))
}

// literal resolves a word of a command or a redirection's target: its
// value once quotes are removed, refused when bash would expand it.
func literal(w *syntax.Word) (string, error) {
	s, err := word(w, false)
	if err != nil {
		return "", err
	}
	if syntax.SplitBraces(w) {
		return "", refuse(w.Pos(), fmt.Sprintf("brace expansion in %q", s))
	}
	return s, nil
}

// word resolves w to the string bash makes of it. In an assignment's
// value (assign), bash expands no patterns, so *, ? and [ stay text there.
func word(w *syntax.Word, assign bool) (string, error) {
	sc := scan{assign: assign}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			sc.unquoted(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", refuse(p.Pos(), "ANSI-C quoting $'…'")
			}
			sc.quoted(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", refuse(p.Pos(), `locale quoting $"…"`)
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", refuse(q.Pos(), partName(q))
				}
				sc.quoted(unescapeDouble(lit.Value))
			}
		default:
			return "", refuse(p.Pos(), partName(p))
		}
		if sc.err != "" {
			return "", refuse(p.Pos(), sc.err)
		}
	}
	return sc.b.String(), nil
}

// scan builds a word's value part by part, watching the unquoted text for
// what bash would expand.
type scan struct {
	b       strings.Builder
	assign  bool
	bracket bool   // an unquoted [ was seen: a later ] makes a pattern
	err     string // why the word is no literal
}

// quoted adds text that was quoted: nothing in it is special, except that
// it may close a bracket pattern opened before.
func (sc *scan) quoted(s string) {
	if sc.bracket && strings.Contains(s, "]") {
		sc.err = "pathname expansion [...]"
	}
	sc.b.WriteString(s)
}

// unquoted adds an unquoted literal, removing its backslashes.
func (sc *scan) unquoted(v string) {
	for i := 0; i < len(v) && sc.err == ""; i++ {
		c := v[i]
		if c == '\\' && i+1 == len(v) {
			sc.err = "a backslash at the end of the line (bash drops it)"
			break
		}
		if c == '\\' {
			i++
			if v[i] != '\n' { // an escaped newline joins lines
				sc.quoted(v[i : i+1])
			}
			continue
		}
		switch {
		case (c == '*' || c == '?') && !sc.assign:
			sc.err = fmt.Sprintf("pathname expansion (an unquoted %c); quote it if it is meant literally", c)
		case c == '[' && !sc.assign:
			sc.bracket = true
		case c == ']' && sc.bracket:
			sc.err = "pathname expansion [...]; quote it if it is meant literally"
		case c == '~' && tildePosition(sc.b.String()):
			sc.err = "tilde expansion (~); write the path"
		}
		sc.b.WriteByte(c)
	}
}

// tildePosition reports whether an unquoted ~ after text is expanded by
// bash: at the start of a word, or after = or : (as in PATH=~/bin:~/x).
func tildePosition(before string) bool {
	return before == "" || strings.HasSuffix(before, "=") || strings.HasSuffix(before, ":")
}

// unescapeDouble removes the backslashes that quote a character inside
// double quotes: before $, `, ", \ and a newline (which it removes too).
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// partName says which expansion a word part is.
func partName(p syntax.WordPart) string {
	switch p := p.(type) {
	case *syntax.ParamExp:
		if p.Param != nil {
			return "parameter expansion of " + p.Param.Value
		}
		return "parameter expansion"
	case *syntax.CmdSubst:
		return "command substitution $(…) or `…`"
	case *syntax.ArithmExp:
		return "arithmetic expansion $((…))"
	case *syntax.ProcSubst:
		return "process substitution <(…) or >(…)"
	case *syntax.ExtGlob:
		return "an extended glob pattern"
	}
	return fmt.Sprintf("%T", p)
}

// evaluating names the builtins that run code or evaluate their
// arguments (an array subscript in a name is arithmetic, which runs
// command substitutions), so literal words do not make them safe.
var evaluating = map[string]string{
	"eval": "runs its arguments as code", "source": "runs a file as code", ".": "runs a file as code",
	"trap": "runs its argument as code later", "alias": "defines aliases", "enable": "loads builtins from files",
	"fc": "runs commands from the history", "bind": "binds keys to commands", "complete": "runs completion commands",
	"compgen": "runs completion commands", "mapfile": "runs callbacks and evaluates its array name",
	"readarray": "runs callbacks and evaluates its array name", "hash": "changes where a command name leads",
	"declare": "evaluates names and values", "typeset": "evaluates names and values", "local": "evaluates names and values",
	"export": "evaluates names and values", "readonly": "evaluates names and values", "unset": "evaluates array subscripts",
	"read": "evaluates array subscripts of its names", "getopts": "evaluates array subscripts of its name",
	"let": "evaluates arithmetic", "shopt": "changes how later lines are read",
}

// evaluatingCall says why the command args would evaluate code, or "".
// It looks through the command and builtin wrappers, and refuses printf
// -v, test -v and wait -p, which assign or test names with subscripts.
func evaluatingCall(args []string) string {
	for len(args) > 0 && (args[0] == "command" || args[0] == "builtin") {
		args = args[1:]
		for len(args) > 0 && strings.HasPrefix(args[0], "-") {
			args = args[1:]
		}
	}
	if len(args) == 0 {
		return ""
	}
	if why, ok := evaluating[args[0]]; ok {
		return "the builtin " + args[0] + " (it " + why + ")"
	}
	if args[0] == "set" {
		return setOptions(args[1:])
	}
	opt := map[string]string{"printf": "-v", "test": "-v", "[": "-v", "wait": "-p"}[args[0]]
	for _, a := range args[1:] {
		if opt != "" && strings.HasPrefix(a, opt) {
			return "the builtin " + args[0] + " " + opt + " (it evaluates array subscripts)"
		}
	}
	return ""
}

// Options of set that leave the reading of later lines alone (errexit,
// nounset, xtrace, pipefail and the like); -H with -o history would let a
// later line rewrite and re-run earlier ones (!!:s/a/b/), -k would turn
// later arguments into environment variables, -o posix changes parsing.
var (
	plainSetFlags   = "euxvfCnbh"
	plainSetOptions = map[string]bool{"errexit": true, "nounset": true, "xtrace": true, "verbose": true, "pipefail": true,
		"noglob": true, "noclobber": true, "noexec": true, "notify": true, "hashall": true}
)

// setOptions says why set with args would change how later lines are
// read, or "".
func setOptions(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") {
			return "" // the positional parameters follow
		}
		for _, f := range a[1:] {
			switch {
			case f == 'o' && i+1 < len(args) && plainSetOptions[args[i+1]]:
				i++
			case f == 'o':
				return "the builtin set -o with an option that changes how later lines are read"
			case !strings.ContainsRune(plainSetFlags, f):
				return fmt.Sprintf("the builtin set %c%c (it changes how later lines are read)", a[0], f)
			}
		}
	}
	return ""
}

// refuse is the error for something at pos that cannot be resolved.
func refuse(pos syntax.Pos, what string) error {
	return &unresolvedError{fmt.Sprintf("%s at %s", what, pos)}
}

func unresolvable(why string) error { return &unresolvedError{why} }

type unresolvedError struct{ why string }

func (e *unresolvedError) Error() string { return ErrUnresolvable.Error() + ": " + e.why }
func (e *unresolvedError) Unwrap() error { return ErrUnresolvable }
