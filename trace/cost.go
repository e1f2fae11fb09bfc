package trace

import "github.com/agentry/agentry/trace/semconv"

// SpanCost is a span's cost_usd attribute, 0 when it has none.
func SpanCost(sp Span) float64 { return NumberAttr(sp.Attributes, semconv.AttrCostUSD) }

// NumberAttr reads a number attribute whether it was recorded as a Go
// number or came back from JSON as float64; anything else is 0.
func NumberAttr(attrs map[string]any, key string) float64 {
	switch v := attrs[key].(type) {
	case float64:
		return v
	case float32:
		return float64(v)
	case int64:
		return float64(v)
	case int:
		return float64(v)
	}
	return 0
}

// CostRollup sums chat spans' costs: the run's total and each agent's.
func CostRollup(spans []Span) (total float64, byAgent map[string]float64) {
	byAgent = map[string]float64{}
	for _, sp := range spans {
		if sp.Kind != KindChat {
			continue
		}
		c := SpanCost(sp)
		if c == 0 {
			continue
		}
		total += c
		byAgent[sp.Agent] += c
	}
	return total, byAgent
}
