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

func TestDidYouMeanNeedsALetterInCommon(t *testing.T) {
	known := []string{"db", "json", "run", "add"}
	cases := map[string]string{
		"x":  "",
		"q":  "",
		"rn": "; did you mean run?",
		"ad": "; did you mean add?",
		"dc": "; did you mean db?",
	}
	for name, want := range cases {
		if got := DidYouMean(name, known, ""); got != want {
			t.Errorf("DidYouMean(%q) = %q, want %q", name, got, want)
		}
	}
}
