package permissions

import (
	"fmt"
	"strings"
)

// GlobalLevel is the name of the level that holds the global configuration's
// rules; reasons call it "global" rather than quoting it as an agent.
const GlobalLevel = "global"

// Decide applies one level to name (deny wins; nil Allow = everything; empty
// Allow = nothing).
//
// When several patterns match, the Decision quotes the most specific one (an
// exact name before a glob before a group before "*"), so the reason points at
// the line a person would edit.
func (r Rules) Decide(level, name string) Decision {
	if p, ok := bestMatch(r.Deny, name); ok {
		return Decision{Subject: name, Level: level, Pattern: p,
			Reason: fmt.Sprintf("denied by %s: deny pattern %q", label(level), p)}
	}
	if r.Allow == nil {
		return Decision{Subject: name, Allowed: true, Level: level,
			Reason: fmt.Sprintf("allowed by %s: it has no allow list", label(level))}
	}
	if len(r.Allow) == 0 {
		return Decision{Subject: name, Level: level,
			Reason: fmt.Sprintf("denied by %s: its allow list is empty", label(level))}
	}
	if p, ok := bestMatch(r.Allow, name); ok {
		return Decision{Subject: name, Allowed: true, Level: level, Pattern: p,
			Reason: fmt.Sprintf("allowed by %s: allow pattern %q", label(level), p)}
	}
	return Decision{Subject: name, Level: level,
		Reason: fmt.Sprintf("denied by %s: no allow pattern matches (allow: %s)", label(level), list(r.Allow))}
}

// bestMatch returns the most specific pattern of patterns matching name; on a
// tie the earlier pattern wins.
func bestMatch(patterns []string, name string) (string, bool) {
	best, bestRank := "", -1
	for _, p := range patterns {
		c := compile(p)
		if !c.match(name) {
			continue
		}
		if r := c.specificity(name); r > bestRank {
			best, bestRank = p, r
		}
	}
	return best, bestRank >= 0
}

// specificityOf ranks pattern p against name; it exists for callers that only
// kept the pattern text.
func specificityOf(p, name string) int {
	c := compile(p)
	return c.specificity(name)
}

// label is how a reason names a level: `global` or `agent "name"`.
func label(level string) string {
	switch level {
	case GlobalLevel:
		return "global"
	case "":
		return "an unnamed level"
	}
	return fmt.Sprintf("agent %q", level)
}

// list quotes patterns for a reason, e.g. ["web" "filesystem.read_*"].
func list(patterns []string) string {
	q := make([]string, len(patterns))
	for i, p := range patterns {
		q[i] = fmt.Sprintf("%q", p)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
