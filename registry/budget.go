package registry

import (
	"fmt"
	"time"
)

// Budget caps what a run may spend, counted over its whole tree of agent
// invocations (DESIGN §10). A zero field sets no cap. In a file it is
// `budget: {tokens: 200000, usd: 2.50, wall_clock: 15m}`; the runtime
// applies the root agent's budget with the configured one and the flags'.
type Budget struct {
	Tokens    int64         // input plus output tokens
	USD       float64       // priced model calls (docs/cost.md)
	WallClock time.Duration // from the run's start
}

// IsZero reports whether the budget caps nothing.
func (b Budget) IsZero() bool { return b.Tokens == 0 && b.USD == 0 && b.WallClock == 0 }

// budgetKeys is budget:.
type budgetKeys struct {
	Tokens    at[int]           `yaml:"tokens"`
	USD       at[float64]       `yaml:"usd"`
	WallClock at[time.Duration] `yaml:"wall_clock"`
}

// budget checks the decoded budget: every cap it sets is positive.
func (dc *decoder) budget(b *budgetKeys) {
	if n, ok := dc.positive(b.Tokens, "budget.tokens"); ok {
		dc.a.Budget.Tokens = int64(n)
	}
	if b.USD.Set() {
		if b.USD.Value <= 0 {
			dc.add(SeverityError, b.USD.Line, "budget.usd", fmt.Sprintf("budget.usd must be a positive number of US dollars such as 2.50, got %v", b.USD.Value))
		} else {
			dc.a.Budget.USD = b.USD.Value
		}
	}
	if b.WallClock.Set() {
		dc.a.Budget.WallClock = dc.positiveDuration(b.WallClock, "budget.wall_clock")
	}
}
