package openai

import (
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/internal/httpapi"
)

// errNoChoices is returned for a completion without choices, which a
// well-behaved server never sends.
var errNoChoices = errors.New("malformed response: no choices")

// parseResponse reads the first choice: its text (or, failing that, the
// model's refusal, so the agent sees why), its function tool calls, and the
// token usage. Tool names go back from wire names to agentry's.
func parseResponse(out *openai.ChatCompletion, names *httpapi.ToolNames) (*model.Response, error) {
	if out == nil || len(out.Choices) == 0 {
		return nil, fmt.Errorf("%s: %w", provider, errNoChoices)
	}
	msg := out.Choices[0].Message
	res := &model.Response{
		Text:         msg.Content,
		InputTokens:  out.Usage.PromptTokens,
		OutputTokens: out.Usage.CompletionTokens,
		// Cached prompt tokens are part of prompt_tokens, priced lower.
		CachedInputTokens: out.Usage.PromptTokensDetails.CachedTokens,
		Model:             out.Model,
	}
	if res.Text == "" {
		res.Text = msg.Refusal
	}
	for _, c := range msg.ToolCalls {
		// Some compatible servers leave "type" out; a named function is a function call.
		if c.Type != "function" && (c.Type != "" || c.Function.Name == "") {
			continue
		}
		res.ToolCalls = append(res.ToolCalls, model.ToolCall{
			ID:   c.ID,
			Name: names.Agentry(c.Function.Name),
			Args: httpapi.ToolArgs(c.Function.Arguments),
		})
	}
	return res, nil
}
