package permissions

import (
	"fmt"
	"strings"
)

// Command patterns. A pattern may carry an argument part in parentheses,
// "shell.run(git *)": as a tool pattern it stands for its tool part
// ("shell.run"), and at call time its argument glob is matched against the
// command line the call runs. In an allow list such a pattern allows the tool
// for matching commands only; in a deny list it denies matching commands and
// leaves the tool itself offered. See doc.go for the splitting rules.

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

// Command decides a call of tool name whose pattern argument is command (the
// command line of shell.run) against the chain's command patterns. A level
// that allows the tool only through command patterns lets the call through
// when every simple command of the line matches one of them; a command deny
// pattern denies the call when any simple command matches it. A line that
// cannot be split safely (command substitution, subshells, unbalanced
// quotes) is denied wherever a command pattern would have to vouch for it.
func Command(chain []Level, name, command string) Decision {
	cmds, splitErr := SplitCommand(command)
	checked := false
	for _, l := range chain {
		if v := l.Rules.verdict(name); !v.allowed() {
			return v.decision(l.Name, name, l.Rules.Allow)
		}
		if d, ok := commandDenied(l, name, cmds, splitErr); ok {
			return d
		}
		d, restricted := commandAllowed(l, name, cmds, splitErr)
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

// commandDenied applies level l's command deny patterns; ok is true when one
// denies the call.
func commandDenied(l Level, name string, cmds []string, splitErr error) (Decision, bool) {
	for _, p := range l.Rules.Deny {
		tp, glob, ok := SplitPattern(p)
		if !ok || !Match(tp, name) {
			continue
		}
		d := Decision{Subject: name, Level: l.Name, Pattern: p}
		if splitErr != nil {
			d.Reason = fmt.Sprintf("denied by %s: deny pattern %q cannot be checked against this command: %v", label(l.Name), p, splitErr)
			return d, true
		}
		for _, c := range cmds {
			for _, v := range denyVariants(c) {
				if matchCommand(glob, v) {
					d.Reason = fmt.Sprintf("denied by %s: deny pattern %q matches %q", label(l.Name), p, c)
					return d, true
				}
			}
		}
	}
	return Decision{}, false
}

// commandAllowed applies level l's allow list to the call; restricted is true
// when the level allows the tool through command patterns only.
func commandAllowed(l Level, name string, cmds []string, splitErr error) (d Decision, restricted bool) {
	d = Decision{Subject: name, Allowed: true, Level: l.Name}
	if l.Rules.Allow == nil {
		return d, false
	}
	var globs, pats []string
	for _, p := range l.Rules.Allow {
		tp, glob, ok := SplitPattern(p)
		switch {
		case !ok && Match(p, name):
			return d, false // the tool itself is allowed, whatever the command
		case ok && Match(tp, name):
			globs, pats = append(globs, glob), append(pats, p)
		}
	}
	d.Allowed = false
	if splitErr != nil {
		d.Reason = fmt.Sprintf("denied by %s: the command cannot be split safely (%v), so its allow patterns %s cannot vouch for it", label(l.Name), splitErr, list(pats))
		return d, true
	}
	if len(cmds) == 0 {
		d.Reason = fmt.Sprintf("denied by %s: an empty command matches none of its allow patterns %s", label(l.Name), list(pats))
		return d, true
	}
	for _, c := range cmds {
		i := matchAny(globs, c)
		if i < 0 {
			d.Reason = fmt.Sprintf("denied by %s: command %q matches none of its allow patterns %s", label(l.Name), c, list(pats))
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

// wrappers are words that run the rest of the line as a command; a deny
// pattern sees the command behind them too.
var wrappers = map[string]bool{
	"!": true, "{": true, "}": true, "if": true, "then": true, "else": true, "elif": true,
	"do": true, "while": true, "until": true, "time": true, "exec": true, "command": true,
	"builtin": true, "nohup": true, "env": true, "sudo": true, "nice": true, "xargs": true,
}

// denyVariants are the forms of a simple command a deny pattern is matched
// against: as written, and with leading variable assignments and wrapper
// words removed and the program's directory dropped ("/bin/rm -rf x" is
// also "rm -rf x"). Deny patterns stay a guard rail, not a boundary: the
// sandbox is the boundary (docs/tools-builtin.md).
func denyVariants(c string) []string {
	out := []string{c}
	words := strings.Fields(c)
	for len(words) > 0 && (wrappers[words[0]] || isAssignment(words[0]) || strings.HasPrefix(words[0], "-")) {
		words = words[1:]
	}
	if len(words) == 0 {
		return out
	}
	if i := strings.LastIndexByte(words[0], '/'); i >= 0 {
		words[0] = words[0][i+1:]
	}
	return append(out, strings.Join(words, " "))
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
