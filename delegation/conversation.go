package delegation

import (
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/trace/semconv"
)

// AttrConversationID is the OpenTelemetry GenAI attribute naming the
// conversation a run belongs to, on its root invoke_agent span: the run's
// own ID when it starts one, the first run's ID for a follow-up
// (Request.Conversation).
//
// A follow-up is a run like any other: Request.History gives its root
// agent the conversation's earlier messages before the new task, and
// Result.Messages hands back the root agent's messages for the next one.
// Only the root agent's messages make the conversation; what its
// sub-agents said stays in the trace (seed 001 §12). Runs of one
// conversation share its sliding window of tool calls in this process.
const AttrConversationID = "gen_ai.conversation.id"

// chatAttrs are what a finished chat span records beyond its tokens: its
// cost, the model that answered (OTLP's gen_ai.response.model), and the
// prompt tokens the provider read from its cache.
func (inv *invocation) chatAttrs(resp *model.Response) map[string]any {
	attrs := inv.chatCost(resp)
	set := func(k string, v any) {
		if attrs == nil {
			attrs = make(map[string]any, 2)
		}
		attrs[k] = v
	}
	if resp.Model != "" {
		set(semconv.AttrResponseModel, resp.Model)
	}
	if resp.CachedInputTokens > 0 {
		set(semconv.AttrCachedInputTokens, resp.CachedInputTokens)
	}
	return attrs
}
