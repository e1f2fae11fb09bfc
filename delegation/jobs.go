package delegation

import (
	"encoding/json"

	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace"
)

// GetAgentResultsTool collects the results of background agents.
const GetAgentResultsTool = loop.GetAgentResultsTool

// ErrDispatcherEnded stops background agents still running when the
// invocation that started them has ended.
var ErrDispatcherEnded = loop.ErrDispatcherEnded

func getAgentResultsSpec() model.Tool {
	return model.Tool{
		Name: GetAgentResultsTool,
		Description: "Wait for agents you started in the background (dispatch_agent, or delegate with background: true) " +
			"and get their results. Without agent_ids it waits for every one whose result you have not had yet.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"agent_ids":{"type":"array","items":{"type":"string"},` +
			`"description":"ids of the agents to wait for; omit to wait for all."}},"required":[]}`),
	}
}

// badAgentIDs is what the model reads of a get_agent_results call whose
// arguments are wrong.
const badAgentIDs = "error: arguments must be {agent_ids?: [string]}"

// endCollect ends a get_agent_results call's span sp (opened as its wait
// began) with the loop's answer, and returns what the model reads.
func (inv *invocation) endCollect(sp *span, a *loop.Action) string {
	if a.Bad {
		sp.end(trace.StatusError, badAgentIDs, map[string]any{trace.AttrToolResult: badAgentIDs})
		return badAgentIDs
	}
	out := loop.Reports(a.Reports)
	sp.end(trace.StatusOK, "", map[string]any{trace.AttrToolResult: out})
	return out
}
