package control

import (
	"testing"
	"time"

	"github.com/agentry/agentry/registry"
)

func TestEffectiveBudget(t *testing.T) {
	cfg := registry.Budget{Tokens: 1000, USD: 2}
	agent := registry.Budget{Tokens: 500, WallClock: time.Minute}
	tests := []struct {
		name string
		req  registry.Budget
		want registry.Budget
	}{
		{"the tighter of config and agent file applies per measure", registry.Budget{}, registry.Budget{Tokens: 500, USD: 2, WallClock: time.Minute}},
		{"a flag overrides both, so a continuation can raise the budget", registry.Budget{Tokens: 4000}, registry.Budget{Tokens: 4000, USD: 2, WallClock: time.Minute}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := EffectiveBudget(cfg, agent, tc.req); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	for n, want := range map[int64]int64{0: 100, 340: 340, 341: 350, 12345: 13000} {
		if got := SuggestTokens(n); got != want {
			t.Errorf("SuggestTokens(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestSpentSaysWhichMeasureTheBudgetWentOver(t *testing.T) {
	l := registry.Budget{Tokens: 100, USD: 1}
	for _, c := range []struct {
		tokens int64
		usd    float64
		want   string
	}{
		{99, 0.5, ""},
		{100, 0.5, "100 tokens used of a budget of 100"},
		{10, 1.25, "$1.2500 used of a budget of $1.00"},
	} {
		if got := Spent(l, c.tokens, c.usd); got != c.want {
			t.Errorf("Spent(%d, %v) = %q, want %q", c.tokens, c.usd, got, c.want)
		}
	}
}

func TestClockSpentComparesTheElapsedTimeWithTheWallClockBudget(t *testing.T) {
	l := registry.Budget{WallClock: 20 * time.Millisecond}
	for _, c := range []struct {
		budget  registry.Budget
		elapsed time.Duration
		want    string
	}{
		{l, 19 * time.Millisecond, ""},
		{l, 20 * time.Millisecond, "the wall clock budget of 20ms ran out"},
		{registry.Budget{Tokens: 10}, time.Hour, ""},
	} {
		if got := ClockSpent(c.budget, c.elapsed); got != c.want {
			t.Errorf("ClockSpent(%v, %v) = %q, want %q", c.budget, c.elapsed, got, c.want)
		}
	}
}
