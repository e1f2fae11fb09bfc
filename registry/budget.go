package registry

import (
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"
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

// budget reads the budget mapping, reporting each bad field at its line.
func (dc *decoder) budget(v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		dc.errorf(v, "budget", "budget must be a mapping {tokens, usd, wall_clock}")
		return
	}
	for k, val := range pairs(v) {
		if isNull(val) {
			continue
		}
		field := "budget." + k.Value
		switch k.Value {
		case "tokens":
			if n, ok := dc.positiveInt(val, field); ok {
				dc.a.Budget.Tokens = int64(n)
			}
		case "usd":
			f, err := strconv.ParseFloat(val.Value, 64)
			if val.Kind != yaml.ScalarNode || (val.Tag != "!!float" && val.Tag != "!!int") || err != nil || f <= 0 {
				dc.errorf(val, field, "%s must be a positive number of US dollars such as 2.50, got %s", field, describe(val))
				continue
			}
			dc.a.Budget.USD = f
		case "wall_clock":
			dc.a.Budget.WallClock = dc.duration(val, field)
		default:
			dc.warnf(k, field, "unknown key %s (expected tokens, usd or wall_clock)", field)
		}
	}
}
