// Package openai adapts the official OpenAI Go SDK's chat completions API to
// model.LLM. Chat completions is the dialect every OpenAI-compatible server
// speaks, so the same adapter drives OpenAI, OpenRouter, Ollama, vLLM and the
// llama.cpp server: only the base URL and key change.
//
// The SDK's own retries are off: the delegation runtime retries, traces each
// attempt and honours Retry-After, so a failure comes back at once as a
// *model.TransientError (429, 5xx, timeouts, dropped connections) or as a
// final error (*APIError for a refused request, or a malformed answer).
package openai
