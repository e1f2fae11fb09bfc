package permissions

import (
	"slices"
	"strconv"
	"strings"
)

// Tool decides name through the whole chain (global, ancestors..., agent):
// allowed only when every level allows; the Decision names the first level that
// denied it, or for an allowed tool the most specific reason (e.g.
// `allowed: global allows "*", agent "coder" allows "filesystem"`).
//
// For an allowed tool, Level and Pattern are the most specific allow pattern
// of any level (on a tie the deeper level, closer to the agent, wins); both are
// empty when no level has an allow list.
func Tool(chain []Level, name string) Decision {
	if len(chain) == 0 {
		return Decision{Subject: name, Allowed: true, Reason: "allowed: no level restricts it"}
	}
	verdicts := make([]verdict, len(chain))
	out := Decision{Subject: name, Allowed: true}
	bestRank := -1
	for i, l := range chain {
		v := l.Rules.verdict(name)
		if !v.allowed() {
			return v.decision(l.Name, name, l.Rules.Allow)
		}
		verdicts[i] = v
		if v.pattern == "" {
			continue
		}
		if r := specificityOf(v.pattern, name); r >= bestRank {
			out.Level, out.Pattern, bestRank = l.Name, v.pattern, r
		}
	}
	var b strings.Builder
	b.WriteString("allowed: ")
	for i, l := range chain {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(label(l.Name))
		if verdicts[i].pattern == "" {
			b.WriteString(" has no allow list")
		} else {
			b.WriteString(" allows ")
			b.WriteString(strconv.Quote(verdicts[i].pattern))
		}
	}
	out.Reason = b.String()
	if ask, ok := askWhole(chain, name); ok {
		ask.Reason += " (" + out.Reason + ")"
		return ask
	}
	return out
}

// Tools decides every known tool name, sorted by name.
//
// Duplicate names in known are decided once.
func Tools(chain []Level, known []string) []Decision {
	names := sortedUnique(known)
	out := make([]Decision, len(names))
	for i, n := range names {
		out[i] = Tool(chain, n)
	}
	return out
}

// sortedUnique returns a sorted copy of names without duplicates.
func sortedUnique(names []string) []string {
	s := slices.Clone(names)
	slices.Sort(s)
	return slices.Compact(s)
}
