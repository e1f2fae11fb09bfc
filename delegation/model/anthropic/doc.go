// Package anthropic adapts the official Anthropic Go SDK's Messages API to
// model.LLM: the system prompt travels as "system", tool calls and their
// results as tool_use and tool_result content blocks.
//
// The SDK's own retries are off: the delegation runtime retries, traces each
// attempt and honours Retry-After, so a failure comes back at once as a
// *model.TransientError (429, 529 overloaded, 5xx, timeouts, dropped
// connections) or as a final error (*APIError for a refused request, or a
// malformed answer).
package anthropic
