package permissions

import "fmt"

// The ask verdict (DESIGN §10). Each level may list ask patterns beside its
// allow and deny lists; a call that an ask pattern matches runs only after
// a person approves it. The order is deny, then ask, then allow, at every
// level and over the chain: a denial anywhere wins, else an ask anywhere
// makes the call wait for approval, else it is allowed. Ask never widens:
// an ask pattern does not let through a name the allow lists keep out, it
// only adds a condition to one they let through. Tool and Target return an
// allowed Decision with Ask set; Call decides one call, where ask patterns
// with an argument part ("shell.run(git push *)") apply too.

// askLabel is the start of an ask reason.
const askLabel = "needs approval for each call"

// askWhole finds the first level (global first) whose whole-tool ask
// patterns match name.
func askWhole(chain []Level, name string) (Decision, bool) {
	for _, l := range chain {
		if len(l.Rules.Ask) == 0 {
			continue
		}
		if p, ok := bestWhole(l.Rules.Ask, name); ok {
			return Decision{Subject: name, Allowed: true, Ask: true, Level: l.Name, Pattern: p,
				Reason: fmt.Sprintf("%s: %s ask pattern %q", askLabel, label(l.Name), p)}, true
		}
	}
	return Decision{}, false
}

// HasAsk reports whether any level of the chain has ask patterns, so a
// caller can skip Call for every call of a chain that has none.
func HasAsk(chain []Level) bool {
	for _, l := range chain {
		if len(l.Rules.Ask) > 0 {
			return true
		}
	}
	return false
}

// Call decides whether one call of tool name, which the chain allows, needs
// a person's approval. command is the call's pattern argument (shell.run's
// command line) when hasCommand is true. An ask pattern with an argument
// part asks when any simple command of the line matches it, as a deny
// pattern denies; a line that cannot be resolved (ParseCommand) asks
// wherever such a pattern would have to be checked. ok is false when nothing asks.
func Call(chain []Level, name, command string, hasCommand bool) (Decision, bool) {
	if d, ok := askWhole(chain, name); ok {
		return d, true
	}
	if !hasCommand {
		return Decision{}, false
	}
	var cmds []SimpleCommand
	var parseErr error
	parsed := false
	for _, l := range chain {
		for _, p := range l.Rules.Ask {
			tp, glob, ok := SplitPattern(p)
			if !ok || !Match(tp, name) {
				continue
			}
			if !parsed {
				cmds, parseErr = ParseCommand(command)
				parsed = true
			}
			d := Decision{Subject: name, Allowed: true, Ask: true, Level: l.Name, Pattern: p}
			if parseErr != nil {
				d.Reason = fmt.Sprintf("%s: %s ask pattern %q cannot be checked against this command (%v)", askLabel, label(l.Name), p, parseErr)
				return d, true
			}
			if c, ok := anyMatches(glob, cmds); ok {
				d.Reason = fmt.Sprintf("%s: %s ask pattern %q matches %q", askLabel, label(l.Name), p, c)
				return d, true
			}
		}
	}
	return Decision{}, false
}

// askTarget finds an ask pattern for delegating to target: the delegator's
// own subagents ask list, then every ancestor's (inherited, as deny lists
// are), then the global one.
func (d Delegation) askTarget(branch []Agent, target string) (Decision, bool) {
	for i := len(branch) - 1; i >= 0; i-- {
		a := branch[i]
		if p, ok := bestMatch(a.Subagents.Ask, target); ok {
			how := "subagents ask pattern"
			if i < len(branch)-1 {
				how = "inherited subagents ask pattern"
			}
			return Decision{Subject: target, Allowed: true, Ask: true, Level: a.Name, Pattern: p,
				Reason: fmt.Sprintf("%s: %s %s %q", askLabel, label(a.Name), how, p)}, true
		}
	}
	if p, ok := bestMatch(d.Ask, target); ok {
		return Decision{Subject: target, Allowed: true, Ask: true, Level: GlobalLevel, Pattern: p,
			Reason: fmt.Sprintf("%s: global subagents ask pattern %q", askLabel, p)}, true
	}
	return Decision{}, false
}
