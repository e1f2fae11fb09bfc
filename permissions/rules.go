package permissions

import (
	"fmt"
	"slices"
	"strconv"
)

// GlobalLevel is the name of the level that holds the global configuration's
// rules; reasons call it "global" rather than quoting it as an agent.
const GlobalLevel = "global"

// ExposeLevel names the level an outside tool's run adds below the global
// one (expose.permissions: the MCP server, A2A and the JSON API).
const ExposeLevel = "expose"

// Decide applies one level to name (deny wins; nil Allow = everything; empty
// Allow = nothing).
//
// When several patterns match, the Decision quotes the most specific one (an
// exact name before a glob before a group before "*"), so the reason points at
// the line a person would edit.
func (r Rules) Decide(level, name string) Decision {
	return r.verdict(name).decision(level, name, r.Allow)
}

// Causes of a level's verdict, kept apart from the wording so a chain can
// decide many levels and word only the one that matters.
const (
	causeDeny    = iota // a deny pattern matched
	causeNoList         // Allow is nil
	causeEmpty          // Allow is empty
	causeAllow          // an allow pattern matched
	causeNoMatch        // no allow pattern matched
)

// verdict is one level's outcome before it is put into words.
type verdict struct {
	pattern string
	cause   int
}

// allowed reports whether the verdict lets the name through.
func (v verdict) allowed() bool { return v.cause == causeNoList || v.cause == causeAllow }

// verdict applies the rules to name without building a reason.
func (r Rules) verdict(name string) verdict {
	if p, ok := bestWhole(r.Deny, name); ok {
		return verdict{p, causeDeny}
	}
	switch {
	case r.Allow == nil:
		return verdict{"", causeNoList}
	case len(r.Allow) == 0:
		return verdict{"", causeEmpty}
	}
	if p, ok := bestMatch(r.Allow, name); ok {
		return verdict{p, causeAllow}
	}
	return verdict{"", causeNoMatch}
}

// decision words the verdict of level for name; allow is the level's allow
// list, quoted when nothing in it matched.
func (v verdict) decision(level, name string, allow []string) Decision {
	d := Decision{Subject: name, Allowed: v.allowed(), Level: level, Pattern: v.pattern}
	switch v.cause {
	case causeDeny:
		d.Reason = fmt.Sprintf("denied by %s: deny pattern %q", label(level), v.pattern)
	case causeNoList:
		d.Reason = fmt.Sprintf("allowed by %s: it has no allow list", label(level))
	case causeEmpty:
		d.Reason = fmt.Sprintf("denied by %s: its allow list is empty", label(level))
	case causeAllow:
		d.Reason = fmt.Sprintf("allowed by %s: allow pattern %q", label(level), v.pattern)
	default:
		d.Reason = fmt.Sprintf("denied by %s: no allow pattern matches (allow: %s)", label(level), list(allow))
	}
	return d
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

// bestWhole is bestMatch over the patterns that name a tool as a whole: in a
// deny or ask list, a pattern with an argument part decides only matching
// calls (command.go, ask.go).
func bestWhole(patterns []string, name string) (string, bool) {
	for _, p := range patterns {
		if hasArgument(p) {
			return bestMatch(slices.DeleteFunc(slices.Clone(patterns), hasArgument), name)
		}
	}
	return bestMatch(patterns, name)
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
	case GlobalLevel, ExposeLevel:
		return level
	case "":
		return "an unnamed level"
	}
	if l, ok := skillLabel(level); ok {
		return l
	}
	return "agent " + strconv.Quote(level)
}

// list quotes patterns for a reason, e.g. ["web", "filesystem.read_*"].
func list(patterns []string) string {
	b := make([]byte, 0, 64)
	b = append(b, '[')
	for i, p := range patterns {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendQuote(b, p)
	}
	return string(append(b, ']'))
}
