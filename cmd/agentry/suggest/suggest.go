// Package suggest finds the known names a mistyped one was meant to be, for
// the "did you mean" of commands, flags, agents, workflows and config keys.
package suggest

import (
	"fmt"
	"sort"
	"strings"
)

// DidYouMean is "; did you mean PREFIX+NAME?" for the known names closest
// to name, or "" when none is close enough to be a likely typo.
func DidYouMean(name string, known []string, prefix string) string {
	close := closest(name, known)
	if len(close) == 0 {
		return ""
	}
	for i := range close {
		close[i] = prefix + close[i]
	}
	return fmt.Sprintf("; did you mean %s?", strings.Join(close, " or "))
}

// closest returns the known names within a typo's reach of name: an edit
// distance (insertions, deletions, substitutions, adjacent swaps) of at most
// a third of the name's length, and at least 2, but less than the whole
// name: a known name that shares no letter with it is no typo of it
// ("--x" is not "--db"); the nearest first, ties in alphabetical order, at
// most three.
func closest(name string, known []string) []string {
	n := len([]rune(name))
	limit := min(max(2, n/3), n-1)
	type cand struct {
		name string
		d    int
	}
	var cands []cand
	for _, k := range known {
		if d := editDistance(strings.ToLower(name), strings.ToLower(k)); d <= limit && k != name {
			cands = append(cands, cand{k, d})
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].d != cands[j].d {
			return cands[i].d < cands[j].d
		}
		return cands[i].name < cands[j].name
	})
	var out []string
	for _, c := range cands {
		if len(out) == 3 || c.d > cands[0].d {
			break
		}
		out = append(out, c.name)
	}
	return out
}

// editDistance is the optimal string alignment distance: Levenshtein plus
// the swap of two adjacent characters as one edit ("modle" → "model").
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
