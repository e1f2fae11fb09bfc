package typo

import "testing"

func TestNearMissesAreSmallDistancesOfNormalisedKeys(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"max-turns", "max_turns", 0},
		{"maxTurns", "max_turns", 0},
		{"tool", "tools", 1},
		{"allowedtool", "allowed-tools", 1},
		{"modle", "model", 2},
		{"", "abc", 3},
	} {
		if got := Distance(Norm(tc.a), Norm(tc.b)); got != tc.want {
			t.Errorf("Distance(Norm(%q), Norm(%q)) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
