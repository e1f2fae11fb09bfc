package memory

import "github.com/agentry/agentry/trace"

// rollup sums spans per agent the way trace.Store.Rollup does, in order of
// each agent's first span; spans must be in start order.
func rollup(spans []trace.Span) []trace.AgentRollup {
	var out []trace.AgentRollup
	index := map[string]int{}
	for _, sp := range spans {
		i, ok := index[sp.Agent]
		if !ok {
			i = len(out)
			index[sp.Agent] = i
			out = append(out, trace.AgentRollup{Agent: sp.Agent})
		}
		r := &out[i]
		switch sp.Kind {
		case trace.KindInvokeAgent:
			r.Invocations++
			if !sp.EndedAt.IsZero() {
				r.Duration += sp.EndedAt.Sub(sp.StartedAt)
			}
		case trace.KindChat:
			r.ModelCalls++
			r.InputTokens += sp.InputTokens
			r.OutputTokens += sp.OutputTokens
		case trace.KindExecuteTool:
			r.ToolCalls++
		}
		if sp.Status.IsError() {
			r.Errors++
		}
	}
	return out
}

// before reports whether run a lists before run b: newer first, then by
// descending ID, the order of trace.Store.Runs.
func before(a, b trace.Run) bool {
	if !a.StartedAt.Equal(b.StartedAt) {
		return a.StartedAt.After(b.StartedAt)
	}
	return a.ID > b.ID
}
