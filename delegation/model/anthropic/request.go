package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/internal/httpapi"
)

// buildParams maps one model turn to a Messages request for l: the system
// prompt as "system", the conversation as alternating user and assistant
// messages, and the tools in the given order under the wire names that
// names assigns.
func (l *LLM) buildParams(req *model.Request, names *httpapi.ToolNames) (anthropic.MessageNewParams, error) {
	params := anthropic.MessageNewParams{Model: anthropic.Model(l.model), MaxTokens: l.maxTokens}
	if req.MaxTokens > 0 {
		params.MaxTokens = int64(req.MaxTokens)
	}
	if req.Temperature != nil {
		params.Temperature = anthropic.Float(*req.Temperature)
	}
	// Cache breakpoints (seed 001 §8): tools come first in Anthropic's
	// prefix, then the system prompt, and both are the same from turn to
	// turn (tools sorted by name), so a breakpoint after the last tool and
	// one after the system prompt let every later turn read them from the
	// prompt cache. A prefix too short to cache is simply not cached.
	if req.System != "" {
		params.System = []anthropic.TextBlockParam{{Text: req.System, CacheControl: anthropic.NewCacheControlEphemeralParam()}}
	}
	msgs, err := messages(req.Messages, names)
	if err != nil {
		return params, err
	}
	params.Messages = msgs
	for _, t := range req.Tools {
		tool, err := toolParam(t, names.Wire(t.Name))
		if err != nil {
			return params, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: &tool})
	}
	if n := len(params.Tools); n > 0 {
		params.Tools[n-1].OfTool.CacheControl = anthropic.NewCacheControlEphemeralParam()
	}
	return params, nil
}

// messages turns the conversation into Anthropic's shape. Tool results are
// content blocks of a user message, and the API wants user and assistant to
// alternate, so consecutive messages that land on the same side (the results
// of one batch of calls, or results followed by a user note) are merged into
// one message, in order.
func messages(conv []model.Message, names *httpapi.ToolNames) ([]anthropic.MessageParam, error) {
	var out []anthropic.MessageParam
	for i, m := range conv {
		role, blocks, err := contentOf(m, names)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		if len(blocks) == 0 {
			continue // nothing to say: the API refuses empty messages
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			continue
		}
		out = append(out, anthropic.MessageParam{Role: role, Content: blocks})
	}
	return out, nil
}

func contentOf(m model.Message, names *httpapi.ToolNames) (anthropic.MessageParamRole, []anthropic.ContentBlockParamUnion, error) {
	switch m.Role {
	case model.RoleUser:
		return anthropic.MessageParamRoleUser, text(m.Content), nil
	case model.RoleAssistant:
		blocks := text(m.Content)
		for _, c := range m.ToolCalls {
			blocks = append(blocks, anthropic.NewToolUseBlock(c.ID, input(c.Args), names.Wire(c.Name)))
		}
		return anthropic.MessageParamRoleAssistant, blocks, nil
	case model.RoleTool:
		return anthropic.MessageParamRoleUser, []anthropic.ContentBlockParamUnion{toolResult(m)}, nil
	}
	return "", nil, fmt.Errorf("unknown role %q", m.Role)
}

// text is a text block, or nothing for empty text, which the API refuses.
func text(s string) []anthropic.ContentBlockParamUnion {
	if s == "" {
		return nil
	}
	return []anthropic.ContentBlockParamUnion{anthropic.NewTextBlock(s)}
}

// toolResult answers one tool_use block; an empty result is sent without
// content, since an empty text block is refused.
func toolResult(m model.Message) anthropic.ContentBlockParamUnion {
	block := anthropic.ToolResultBlockParam{ToolUseID: m.ToolCallID}
	if m.Content != "" {
		block.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: m.Content}}}
	}
	return anthropic.ContentBlockParamUnion{OfToolResult: &block}
}

// input replays a call's arguments. The API insists on a JSON object, so
// arguments that were not one (the runtime already told the model so) are
// replayed as the empty object.
func input(args json.RawMessage) any {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed) {
		return json.RawMessage(trimmed)
	}
	return map[string]any{}
}

// toolParam offers one tool. "properties" and "required" have their own
// fields in the SDK; every other keyword of the schema rides along as an
// extra field, raw, so nothing is lost or reordered below the top level.
func toolParam(t model.Tool, wireName string) (anthropic.ToolParam, error) {
	tool := anthropic.ToolParam{Name: wireName}
	if t.Description != "" {
		tool.Description = anthropic.String(t.Description)
	}
	if len(t.Parameters) == 0 {
		tool.InputSchema.Properties = map[string]any{}
		return tool, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(t.Parameters, &raw); err != nil {
		return tool, fmt.Errorf("parameters are not a JSON object: %w", err)
	}
	for k, v := range raw {
		switch k {
		case "type": // always "object" for a tool; the SDK writes it
		case "properties":
			tool.InputSchema.Properties = v
		case "required":
			if err := json.Unmarshal(v, &tool.InputSchema.Required); err != nil {
				return tool, fmt.Errorf("parameters: required is not a list of names: %w", err)
			}
		default:
			if tool.InputSchema.ExtraFields == nil {
				tool.InputSchema.ExtraFields = map[string]any{}
			}
			tool.InputSchema.ExtraFields[k] = v
		}
	}
	if tool.InputSchema.Properties == nil {
		tool.InputSchema.Properties = map[string]any{}
	}
	return tool, nil
}
