package anthropic

import (
	"errors"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/internal/httpapi"
)

// errNoContent is returned for an answer without a content list, which the
// Messages API never sends.
var errNoContent = errors.New("malformed response: no content")

// parseResponse reads the answer's content blocks: text blocks are joined in
// order (with citations Claude splits one answer into many), tool_use blocks
// become tool calls with their names translated back, and anything else
// (thinking, server tools) is left out. Input tokens count cache reads and
// writes too, so a budget sees every token the request consumed, as OpenAI's
// prompt_tokens does.
func parseResponse(out *anthropic.Message, names *httpapi.ToolNames) (*model.Response, error) {
	if !out.JSON.Content.Valid() {
		return nil, fmt.Errorf("%s: %w", provider, errNoContent)
	}
	var text strings.Builder
	res := &model.Response{
		InputTokens:  out.Usage.InputTokens + out.Usage.CacheCreationInputTokens + out.Usage.CacheReadInputTokens,
		OutputTokens: out.Usage.OutputTokens,
		// Cache reads are priced lower; cache writes stay at the input price.
		CachedInputTokens: out.Usage.CacheReadInputTokens,
		Model:             string(out.Model),
	}
	for _, b := range out.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			res.ToolCalls = append(res.ToolCalls, model.ToolCall{ID: b.ID, Name: names.Agentry(b.Name), Args: httpapi.ToolArgs(b.Input)})
		}
	}
	res.Text = text.String()
	return res, nil
}
