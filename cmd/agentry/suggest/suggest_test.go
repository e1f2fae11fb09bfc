package suggest

import "testing"

func TestDidYouMeanFindsTyposOnly(t *testing.T) {
	known := []string{"research-coordinator", "data-analyst", "web-researcher", "citation-checker"}
	cases := map[string]string{
		"reserch-coordinator": "; did you mean research-coordinator?",
		"data-analist":        "; did you mean data-analyst?",
		"web-reseacher":       "; did you mean web-researcher?",
		"weather":             "",
		"x":                   "",
	}
	for name, want := range cases {
		if got := DidYouMean(name, known, ""); got != want {
			t.Errorf("DidYouMean(%q) = %q, want %q", name, got, want)
		}
	}
}
