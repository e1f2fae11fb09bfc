package diagram

import "strings"

// kinds lists the edge kinds in d once each, in order of first use: one
// arrowhead marker per kind, coloured by the same CSS class as its line.
func (d Drawing) kinds() []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range d.Edges {
		if !seen[e.Kind] {
			seen[e.Kind] = true
			out = append(out, e.Kind)
		}
	}
	return out
}

// marker is the id of kind's arrowhead: prefixed by the drawing's ID so two
// diagrams on one page keep apart, and reduced to id-safe characters.
func (d Drawing) marker(kind string) string {
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, kind)
	return d.ID + "-arrow-" + safe
}
