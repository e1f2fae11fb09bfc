package trace

// Names for cost and hooks (DESIGN §10).
const (
	// AttrCostUSD is a chat span's cost in US dollars, from the configured
	// price table; absent when the model has no price.
	AttrCostUSD = "cost_usd"
	// AttrCachedInputTokens is, on a chat span, the part of its input
	// tokens the provider read from its prompt cache (Anthropic's cache
	// reads, OpenAI's cached prompt tokens); absent when none were.
	AttrCachedInputTokens = "cached_input_tokens"

	// EventHook is on the span of an action a hook ran for (the tool's
	// execute_tool span, the delegation's, the root invoke_agent span for
	// run_start and run_end): one event per hook command run.
	EventHook = "hook"
	// EventHook attributes.
	EventAttrHook       = "hook" // the point: pre_tool, post_tool, subagent_start, ...
	EventAttrCommand    = "command"
	EventAttrDurationMS = "duration_ms"
	EventAttrVerdict    = "verdict" // allow | block
	EventAttrReason     = "reason"
)

// SpanCost is a span's cost_usd attribute, 0 when it has none. It takes
// the number types a store may hand back after a JSON round trip.
func SpanCost(sp Span) float64 {
	switch v := sp.Attributes[AttrCostUSD].(type) {
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
