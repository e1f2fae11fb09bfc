package permissions

import (
	"fmt"
	"slices"
	"strings"
)

// Command patterns. A pattern may carry an argument part in parentheses,
// "shell.run(git *)": as a tool pattern it stands for its tool part
// ("shell.run"), and at call time its argument glob is matched against the
// command line the call runs. In an allow list such a pattern allows the tool
// for matching commands only; in a deny list it denies matching commands and
// leaves the tool itself offered. How a line is read: shellparse.go.

// SplitPattern splits "tool(arg)" into its tool part and argument glob; ok is
// false for a pattern without an argument part.
func SplitPattern(p string) (tool, arg string, ok bool) {
	i := strings.IndexByte(p, '(')
	if i <= 0 || !strings.HasSuffix(p, ")") {
		return p, "", false
	}
	return p[:i], p[i+1 : len(p)-1], true
}

// hasArgument reports whether pattern p carries an argument part.
func hasArgument(p string) bool {
	_, _, ok := SplitPattern(p)
	return ok
}

// argumentPattern splits an allow pattern with an argument part into its
// tool and glob. ok is false for a pattern without one, and for one whose
// tool part is no single tool ("*(git *)", "shell(git *)"): an argument
// can only restrict one tool's calls, so such a pattern allows nothing
// (validation reports it as an error).
func argumentPattern(p string) (tool, glob string, ok bool) {
	tool, glob, ok = SplitPattern(p)
	if !ok || hasWildcard(tool) || !strings.Contains(tool, ".") {
		return "", "", false
	}
	return tool, glob, true
}

// ValidArgumentPattern says why pattern p, which has an argument part,
// cannot restrict anything, or "" when it can: its tool part must be one
// tool's full name.
func ValidArgumentPattern(p string) string {
	if _, _, ok := SplitPattern(p); !ok {
		return ""
	}
	if _, _, ok := argumentPattern(p); ok {
		return ""
	}
	return fmt.Sprintf("%q: a pattern with an argument part must name one tool, such as shell.run(git *); a glob or a group before the parentheses would allow nothing", p)
}

// Command decides a call of tool name whose pattern argument is command (the
// command line of shell.run) against the chain's command patterns. A level
// that allows the tool only through command patterns lets the call through
// when every simple command of the line matches one of them; a command deny
// pattern denies the call when any simple command matches it. A line that
// cannot be resolved to literal commands (ParseCommand) is denied wherever
// a command pattern would have to vouch for it.
func Command(chain []Level, name, command string) Decision {
	cmds, parseErr := ParseCommand(command)
	checked := false
	for _, l := range chain {
		if v := l.Rules.verdict(name); !v.allowed() {
			return v.decision(l.Name, name, l.Rules.Allow)
		}
		if d, ok := commandDenied(l, name, cmds, parseErr); ok {
			return d
		}
		d, restricted := commandAllowed(l, name, cmds, parseErr)
		if !d.Allowed {
			return d
		}
		checked = checked || restricted
	}
	if !checked {
		return Decision{Subject: name, Allowed: true, Reason: "allowed: no command pattern restricts it"}
	}
	return Decision{Subject: name, Allowed: true, Reason: fmt.Sprintf("allowed: every command of %q matches an allow pattern", command)}
}

// WithoutArgument decides a call of tool name, which takes no pattern
// argument: a level that allows it only through patterns with an argument
// part ("web.fetch(x)", a mistake validation reports) lets no call of it
// through, since nothing of the call could match them.
func WithoutArgument(chain []Level, name string) Decision {
	for _, l := range chain {
		if v := l.Rules.verdict(name); !v.allowed() {
			return v.decision(l.Name, name, l.Rules.Allow)
		}
		if !slices.ContainsFunc(l.Rules.Allow, hasArgument) {
			continue
		}
		var pats []string
		whole := false
		for _, p := range l.Rules.Allow {
			if tp, _, ok := argumentPattern(p); ok && Match(tp, name) {
				pats = append(pats, p)
			} else if !hasArgument(p) && Match(p, name) {
				whole = true
			}
		}
		if !whole {
			return Decision{Subject: name, Level: l.Name, Reason: fmt.Sprintf("denied by %s: it allows %s only through patterns with an argument part %s, and %s takes no argument they could match", label(l.Name), name, list(pats), name)}
		}
	}
	return Decision{Subject: name, Allowed: true, Reason: "allowed: no pattern with an argument part restricts it"}
}

// commandDenied applies level l's command deny patterns; ok is true when one
// denies the call.
func commandDenied(l Level, name string, cmds []SimpleCommand, parseErr error) (Decision, bool) {
	for _, p := range l.Rules.Deny {
		tp, glob, ok := SplitPattern(p)
		if !ok || !Match(tp, name) {
			continue
		}
		d := Decision{Subject: name, Level: l.Name, Pattern: p}
		if parseErr != nil {
			d.Reason = fmt.Sprintf("denied by %s: deny pattern %q cannot be checked against this command: %v", label(l.Name), p, parseErr)
			return d, true
		}
		if c, ok := anyMatches(glob, cmds); ok {
			d.Reason = fmt.Sprintf("denied by %s: deny pattern %q matches %q", label(l.Name), p, c)
			return d, true
		}
	}
	return Decision{}, false
}

// Covers reports whether pattern covers one call of tool name, the way a
// deny or an ask pattern reads it: a pattern without an argument part by its
// name alone; one with an argument part ("shell.run(git push *)") when some
// simple command of arg, the call's pattern argument, matches its glob. A
// line that cannot be resolved counts as covered, as it is denied or asked
// about: a guard (a hook's condition) must over-reach rather than miss. A
// tool that takes no pattern argument (hasArg false) is covered by no
// pattern with an argument part.
func Covers(pattern, name, arg string, hasArg bool) bool {
	tp, glob, ok := SplitPattern(pattern)
	if !ok {
		return Match(pattern, name)
	}
	if !hasArg || !Match(tp, name) {
		return false
	}
	cmds, err := ParseCommand(arg)
	if err != nil {
		return true
	}
	_, covered := anyMatches(glob, cmds)
	return covered
}

// anyMatches finds the first command that glob matches in any of its
// forms (denyVariants), as a deny or an ask pattern applies.
func anyMatches(glob string, cmds []SimpleCommand) (string, bool) {
	for _, c := range cmds {
		for _, v := range denyVariants(c) {
			if matchCommand(glob, v) {
				return c.String(), true
			}
		}
	}
	return "", false
}

// commandAllowed applies level l's allow list to the call; restricted is true
// when the level allows the tool through command patterns only.
func commandAllowed(l Level, name string, cmds []SimpleCommand, parseErr error) (d Decision, restricted bool) {
	d = Decision{Subject: name, Allowed: true, Level: l.Name}
	if l.Rules.Allow == nil {
		return d, false
	}
	var globs, pats []string
	for _, p := range l.Rules.Allow {
		tp, glob, ok := argumentPattern(p)
		switch {
		case !hasArgument(p) && Match(p, name):
			return d, false // the tool itself is allowed, whatever the command
		case ok && Match(tp, name):
			globs, pats = append(globs, glob), append(pats, p)
		}
	}
	d.Allowed = false
	if parseErr != nil {
		d.Reason = fmt.Sprintf("denied by %s: %v, so its allow patterns %s cannot vouch for the command", label(l.Name), parseErr, list(pats))
		return d, true
	}
	if len(cmds) == 0 {
		d.Reason = fmt.Sprintf("denied by %s: an empty command matches none of its allow patterns %s", label(l.Name), list(pats))
		return d, true
	}
	for _, c := range cmds {
		text := c.String()
		i := matchAny(globs, text)
		if i < 0 {
			d.Reason = fmt.Sprintf("denied by %s: command %q matches none of its allow patterns %s", label(l.Name), text, list(pats))
			return d, true
		}
		d.Pattern = pats[i]
	}
	d.Allowed = true
	return d, true
}

// matchAny returns the index of the first glob matching command, or -1.
func matchAny(globs []string, command string) int {
	for i, g := range globs {
		if matchCommand(g, command) {
			return i
		}
	}
	return -1
}

// matchCommand matches one simple command against an argument glob. A glob
// ending in " *" (or Claude Code's ":*") also matches the bare command
// without arguments: "git *" matches "git".
func matchCommand(glob, command string) bool {
	if base, ok := strings.CutSuffix(glob, ":*"); ok {
		glob = base + " *"
	}
	if matchGlob(glob, command) {
		return true
	}
	base, ok := strings.CutSuffix(glob, " *")
	return ok && matchGlob(base, command)
}

// wrappers are programs that run the rest of their words as a command; a
// deny pattern sees the command behind them too.
var wrappers = map[string]bool{
	"exec": true, "command": true, "builtin": true, "nohup": true, "env": true, "sudo": true, "nice": true,
	"xargs": true, "time": true,
}

// denyVariants are the texts of a simple command a deny or ask pattern is
// matched against: as String renders it, its words joined as they are
// (so a word holding spaces cannot hide from "rm -rf *"), and without
// leading assignments and wrapper words, with the program's directory
// dropped ("X=1 sudo /bin/rm -rf x" is also "rm -rf x"). Deny patterns
// stay a guard rail, not a boundary: the sandbox is the boundary
// (docs/tools-builtin.md).
func denyVariants(c SimpleCommand) []string {
	out := []string{c.String(), strings.Join(append(slices.Clone(c.Assigns), c.Args...), " ")}
	words := c.Args
	for len(words) > 0 && (wrappers[words[0]] || isAssignment(words[0]) || strings.HasPrefix(words[0], "-")) {
		words = words[1:]
	}
	if len(words) == 0 {
		return out
	}
	words = slices.Clone(words)
	if i := strings.LastIndexByte(words[0], '/'); i >= 0 {
		words[0] = words[0][i+1:]
	}
	return append(out, SimpleCommand{Args: words}.String(), strings.Join(words, " "))
}

// Grant decides a capability that is not a tool of its own, such as
// "shell.network": granted only when every level of the chain allows it and
// at least one level names it exactly in its allow list. A "*" or a group
// does not grant it, so the default global allow ["*"] keeps the shell
// offline.
func Grant(chain []Level, capability string) Decision {
	d := Tool(chain, capability)
	if !d.Allowed {
		return d
	}
	for i := len(chain) - 1; i >= 0; i-- {
		for _, p := range chain[i].Rules.Allow {
			if p == capability {
				return Decision{Subject: capability, Allowed: true, Level: chain[i].Name, Pattern: p,
					Reason: fmt.Sprintf("granted by %s: allow pattern %q", label(chain[i].Name), p)}
			}
		}
	}
	return Decision{Subject: capability, Reason: fmt.Sprintf("not granted: no level names %q in its allow list", capability)}
}

// isAssignment reports whether w is a NAME=value word.
func isAssignment(w string) bool {
	i := strings.IndexByte(w, '=')
	if i <= 0 {
		return false
	}
	for _, r := range w[:i] {
		if r != '_' && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}
