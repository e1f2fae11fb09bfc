package trace

// RollupSpans sums spans per agent the way Store.Rollup does, in order of
// each agent's first span; spans must be in start order.
func RollupSpans(spans []Span) []AgentRollup {
	var out []AgentRollup
	index := map[string]int{}
	for _, sp := range spans {
		i, ok := index[sp.Agent]
		if !ok {
			i = len(out)
			index[sp.Agent] = i
			out = append(out, AgentRollup{Agent: sp.Agent})
		}
		r := &out[i]
		switch sp.Kind {
		case KindInvokeAgent:
			r.Invocations++
			if !sp.EndedAt.IsZero() {
				r.Duration += sp.EndedAt.Sub(sp.StartedAt)
			}
		case KindChat:
			r.ModelCalls++
			r.InputTokens += sp.InputTokens
			r.OutputTokens += sp.OutputTokens
		case KindExecuteTool:
			r.ToolCalls++
		}
		if sp.Status.IsError() {
			r.Errors++
		}
	}
	return out
}
