package cost

import (
	"math"
	"testing"
)

func TestCost(t *testing.T) {
	tab, err := New(map[string]Price{"openai:gpt-4.1": {Input: 1, Output: 1}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name            string
		spec            string
		in, out, cached int64
		want            float64
		ok              bool
	}{
		{"a provider spec finds the shipped model id", "anthropic:claude-sonnet-4-5", 1_000_000, 1_000_000, 0, 18, true},
		{"cached input is priced at the cached rate", "anthropic:claude-sonnet-4-5", 1_000_000, 0, 500_000, 1.5 + 0.15, true},
		{"a dated id falls back to the undated one", "anthropic:claude-haiku-4-5-20251001", 2_000_000, 0, 0, 2, true},
		{"an override on the full spec wins over the shipped id", "openai:gpt-4.1", 1_000_000, 1_000_000, 0, 2, true},
		{"another provider of the same id keeps the shipped price", "openrouter:gpt-4.1", 1_000_000, 0, 0, 2, true},
		{"a model without a price has no cost", "demo", 100, 100, 0, 0, false},
		{"cached beyond input is capped at input", "o3", 1_000_000, 0, 5_000_000, 0.5, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := tab.Cost(c.spec, c.in, c.out, c.cached)
			if ok != c.ok || math.Abs(got-c.want) > 1e-9 {
				t.Fatalf("Cost(%q) = %v, %v; want %v, %v", c.spec, got, ok, c.want, c.ok)
			}
		})
	}
}

func TestNewRejectsNegativePrices(t *testing.T) {
	if _, err := New(map[string]Price{"x": {Input: -1}}); err == nil {
		t.Fatal("want an error for a negative price")
	}
}
