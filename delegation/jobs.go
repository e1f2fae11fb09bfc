package delegation

import (
	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// badAgentIDs is what the model reads of a get_agent_results call whose
// arguments are wrong.
const badAgentIDs = "error: arguments must be {agent_ids?: [string]}"

// endCollect ends a get_agent_results call's span sp (opened as its wait
// began) with the loop's answer, and returns what the model reads.
func (inv *invocation) endCollect(sp *span, a *loop.Action) string {
	if a.Bad {
		sp.end(trace.StatusError, badAgentIDs, map[string]any{semconv.AttrToolResult: badAgentIDs})
		return badAgentIDs
	}
	out := loop.Reports(a.Reports)
	sp.end(trace.StatusOK, "", map[string]any{semconv.AttrToolResult: out})
	return out
}
