// Package typo finds near misses of a word agentry knows: a frontmatter
// key written with other separators or a letter or two wrong. registry
// suggests agent keys with it and registry/skills the keys of SKILL.md, so
// both judge a typo the same way.
package typo

import "strings"

// Norm folds case and separators: max-turns, maxTurns and max_turns meet.
func Norm(k string) string {
	return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(k))
}

// Distance is the Levenshtein distance of two short strings.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Nearest is the known key that key is a near miss of, the closest when
// several are (an exact match of their normal forms first); "" when none
// is. A near miss is a distance of 1, or 2 for keys longer than five
// letters: short keys are too alike for more.
func Nearest(key string, known []string) string {
	norm := Norm(key)
	best, bestDist := "", 0
	for _, k := range known {
		if Norm(k) == norm {
			return k
		}
		limit := 1
		if len(k) > 5 {
			limit = 2
		}
		if d := Distance(norm, Norm(k)); d <= limit && (best == "" || d < bestDist) {
			best, bestDist = k, d
		}
	}
	return best
}
