package files

import (
	"sync/atomic"
	"testing"
)

func TestPlainPathsHaveNoHiddenPartAndNoNodeModules(t *testing.T) {
	for p, want := range map[string]bool{
		"a.md": true, "team/a.md": true, "docs/skills/pdf/SKILL.md": true,
		".git/a.md": false, "team/.hidden.md": false, "x/node_modules/y.md": false,
	} {
		if got := Plain(p); got != want {
			t.Errorf("Plain(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestParallelGivesEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000} {
		seen := make([]atomic.Int32, n)
		Parallel(n, func(i int) { seen[i].Add(1) })
		for i := range seen {
			if c := seen[i].Load(); c != 1 {
				t.Fatalf("n=%d: index %d ran %d times", n, i, c)
			}
		}
	}
}
