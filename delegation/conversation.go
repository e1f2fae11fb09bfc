package delegation

import "github.com/agentry/agentry/delegation/model"

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

// AttrCachedInputTokens is, on a chat span, the part of its input tokens
// the provider read from its prompt cache (Anthropic's cache reads,
// OpenAI's cached prompt tokens); absent when none were.
const AttrCachedInputTokens = "cached_input_tokens"

// cachedTokens adds AttrCachedInputTokens to a chat span's end attributes.
func cachedTokens(attrs map[string]any, resp *model.Response) map[string]any {
	if resp.CachedInputTokens <= 0 {
		return attrs
	}
	if attrs == nil {
		attrs = make(map[string]any, 1)
	}
	attrs[AttrCachedInputTokens] = resp.CachedInputTokens
	return attrs
}
