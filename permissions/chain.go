package permissions

import (
	"fmt"
	"slices"
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
	parts := make([]string, 0, len(chain))
	out := Decision{Subject: name, Allowed: true}
	bestRank := -1
	for _, l := range chain {
		d := l.Rules.Decide(l.Name, name)
		if !d.Allowed {
			return d
		}
		if d.Pattern == "" {
			parts = append(parts, label(l.Name)+" has no allow list")
			continue
		}
		parts = append(parts, fmt.Sprintf("%s allows %q", label(l.Name), d.Pattern))
		if r := specificityOf(d.Pattern, name); r >= bestRank {
			out.Level, out.Pattern, bestRank = l.Name, d.Pattern, r
		}
	}
	out.Reason = "allowed: " + strings.Join(parts, ", ")
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

// Effective returns the allowed names among known, sorted.
//
// It gives the same answer as filtering Tools by Allowed, without building
// reasons: the runtime calls it for every invocation to choose the tools a
// model is offered, so it compiles the chain's patterns once and allocates
// only the result.
func Effective(chain []Level, known []string) []string {
	var levelBuf [8]compiledLevel
	var patBuf [64]compiled
	levels, ok := compileChain(chain, levelBuf[:0], patBuf[:0])
	if !ok {
		return []string{}
	}
	out := make([]string, 0, len(known))
	for _, n := range known {
		if allowsAll(levels, n) {
			out = append(out, n)
		}
	}
	if !slices.IsSorted(out) {
		slices.Sort(out)
	}
	return slices.Compact(out)
}

// sortedUnique returns a sorted copy of names without duplicates.
func sortedUnique(names []string) []string {
	s := slices.Clone(names)
	slices.Sort(s)
	return slices.Compact(s)
}
