package semconv

// Well-known span attribute keys. Span attributes are an open map; these are
// the keys the CLI, the UI and the DESIGN §8 contract rely on.
const (
	AttrTask             = "task"
	AttrContextMode      = "context_mode"
	AttrContextPassed    = "context_passed"
	AttrResult           = "result"
	AttrEffectiveTools   = "effective_tools"
	AttrPermissions      = "permission_decisions"
	AttrTargetAgent      = "target_agent"
	AttrDelegationStatus = "delegation_status"
	AttrRetryAttempt     = "retry_attempt"
	AttrModel            = "model"
	AttrResponseModel    = "response_model" // the model that answered, as the provider names it
	AttrToolName         = "tool_name"
	AttrToolCallID       = "tool_call_id" // the model's ID for the call
	AttrToolArguments    = "tool_arguments"
	AttrToolResult       = "tool_result"
	AttrQueuedMS         = "queued_ms" // time a delegation waited for a concurrency slot
)

// Cost attributes (DESIGN §10, docs/cost.md).
const (
	// AttrCostUSD is a chat span's cost in US dollars, from the configured
	// price table; absent when the model has no price.
	AttrCostUSD = "cost_usd"
	// AttrCachedInputTokens is, on a chat span, the part of its input
	// tokens the provider read from its prompt cache (Anthropic's cache
	// reads, OpenAI's cached prompt tokens); absent when none were.
	AttrCachedInputTokens = "cached_input_tokens"
)
