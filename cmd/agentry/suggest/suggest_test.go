package suggest

import "testing"

func TestDidYouMeanFindsTyposOnly(t *testing.T) {
	agents := []string{"research-coordinator", "data-analyst", "web-researcher", "citation-checker"}
	short := []string{"db", "json", "run", "add"} // flags and subcommands
	cases := []struct {
		name  string
		known []string
		want  string
	}{
		{"reserch-coordinator", agents, "; did you mean research-coordinator?"},
		{"data-analist", agents, "; did you mean data-analyst?"},
		{"web-reseacher", agents, "; did you mean web-researcher?"},
		{"weather", agents, ""},
		{"x", agents, ""},
		// A suggestion shares a letter with the typo: --x is not --db.
		{"x", short, ""},
		{"q", short, ""},
		{"rn", short, "; did you mean run?"},
		{"ad", short, "; did you mean add?"},
		{"dc", short, "; did you mean db?"},
	}
	for _, c := range cases {
		if got := DidYouMean(c.name, c.known, ""); got != c.want {
			t.Errorf("DidYouMean(%q, %v) = %q, want %q", c.name, c.known, got, c.want)
		}
	}
}
