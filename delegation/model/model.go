// Package model is the small contract between the delegation runtime and the
// language models it drives. Providers live in subpackages named after what they
// adapt (model/openai, model/anthropic) or what they are (model/script,
// model/demo); the runtime only ever sees LLM.
package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// LLM is one configured model. Generate is called concurrently from many
// agent invocations and must be safe for that.
type LLM interface {
	// Name is the model spec as the trace shows it, e.g. "openai:gpt-4.1-mini".
	Name() string
	// Generate plays one model turn. It returns *TransientError for failures
	// worth retrying (timeouts, 429, 5xx); any other error is final.
	Generate(ctx context.Context, req *Request) (*Response, error)
}

// Role of a message in a conversation.
type Role string

// Roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool" // the result of one tool call
)

// Message is one entry of a conversation. The system prompt is not a message:
// it travels in Request.System.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content,omitempty"`
	// ToolCalls are the calls an assistant message asked for.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID ties a RoleTool message to the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// ToolCall is one call a model asked for. Args is the raw JSON object the model
// produced; it may not parse, and the runtime reports that back to the model.
type ToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// Tool is a tool offered to the model: a name, what it is for, and the JSON
// Schema of its arguments.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one model turn's input. Messages is shared with the runtime's
// conversation: a provider must not modify it or keep it after returning.
type Request struct {
	// Agent is the name of the invoking agent; providers that play roles by
	// agent (script, demo) use it, real providers ignore it.
	Agent string
	// Invocation is unique per agent invocation within the process.
	// Providers that keep state per invocation (script plays an agent's
	// turns from the first one for every new invocation) key it on this;
	// real providers ignore it. It travels in the request, not the
	// context, so a provider sees it in its signature and tests set it
	// plainly.
	Invocation string
	// Calls is how many model calls this invocation made before this one,
	// retries included, when a durable engine resumes the invocation in
	// another process (delegation/temporal); 0 otherwise. Providers that
	// count turns per Invocation (script) start from it.
	Calls int
	// Purpose is PurposeTurn (the agent's own turn) or PurposeSummary.
	Purpose  string
	System   string
	Messages []Message
	Tools    []Tool // sorted by name, so provider prompt caches hit
	// Temperature, when set, is the agent's sampling temperature
	// (frontmatter temperature:); nil leaves the provider's default.
	Temperature *float64
	// MaxTokens, when above 0, caps this answer's output tokens
	// (frontmatter max_tokens:) instead of the provider's configured cap.
	MaxTokens int
}

// Response is a model turn's output: text, tool calls, or both.
type Response struct {
	Text         string
	ToolCalls    []ToolCall
	InputTokens  int64
	OutputTokens int64
	// CachedInputTokens is the part of InputTokens read from the
	// provider's prompt cache (priced lower), 0 when it reports none.
	CachedInputTokens int64
	// Model is the model that answered as the provider names it (often
	// a dated version of the one asked for), "" when it does not say.
	Model string
}

// TransientError is a failure that may succeed when tried again.
type TransientError struct {
	// RetryAfter is the provider's requested wait (Retry-After), 0 when unsaid.
	RetryAfter time.Duration
	Err        error
}

func (e *TransientError) Error() string { return "transient: " + e.Err.Error() }
func (e *TransientError) Unwrap() error { return e.Err }

// IsTransient reports whether err is worth retrying, and the wait the provider asked for.
func IsTransient(err error) (retryAfter time.Duration, ok bool) {
	var t *TransientError
	if errors.As(err, &t) {
		return t.RetryAfter, true
	}
	return 0, false
}

// Factory builds an LLM for the model part of a spec ("gpt-4.1" of "openai:gpt-4.1").
type Factory func(model string) (LLM, error)

// Providers maps a spec's provider part ("openai", "anthropic", "demo",
// "script") to its Factory. The binary fills it; tests fill their own.
type Providers map[string]Factory

// ErrUnknownProvider is returned for a spec whose provider is not configured.
var ErrUnknownProvider = errors.New("unknown model provider")

// Resolve builds the LLM for spec "provider:model" (or a bare "provider",
// as in "demo"), after replacing an alias.
func (p Providers) Resolve(spec string, aliases map[string]string) (LLM, error) {
	if a, ok := aliases[spec]; ok {
		spec = a
	}
	provider, name := spec, ""
	for i := 0; i < len(spec); i++ {
		if spec[i] == ':' {
			provider, name = spec[:i], spec[i+1:]
			break
		}
	}
	f, ok := p[provider]
	if !ok {
		return nil, fmt.Errorf("model %q: %w %q", spec, ErrUnknownProvider, provider)
	}
	return f(name)
}

// Sleep waits d, or until ctx ends and then returns its cause. Models that
// simulate latency and the runtime's retry backoff share it, so a cancelled
// run never waits out a timer.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
