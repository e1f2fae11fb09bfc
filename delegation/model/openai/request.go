package openai

import (
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/internal/httpapi"
)

// buildParams maps one model turn to a chat completion request for l: the
// system prompt first, then the conversation, then the tools in the given
// order, under the wire names that names assigns.
func (l *LLM) buildParams(req *model.Request, names *httpapi.ToolNames) (openai.ChatCompletionNewParams, error) {
	params := openai.ChatCompletionNewParams{Model: shared.ChatModel(l.model)}
	// max_completion_tokens is OpenAI's current name (its reasoning models
	// refuse max_tokens); vLLM and llama.cpp's server read it too.
	if req.MaxTokens > 0 {
		params.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
	}
	if req.Temperature != nil {
		params.Temperature = openai.Float(*req.Temperature)
	}
	if req.System != "" {
		params.Messages = append(params.Messages, openai.SystemMessage(req.System))
	}
	for i, m := range req.Messages {
		msg, err := message(m, names)
		if err != nil {
			return params, fmt.Errorf("message %d: %w", i, err)
		}
		params.Messages = append(params.Messages, msg)
	}
	for _, t := range req.Tools {
		tool, err := functionTool(t, names.Wire(t.Name))
		if err != nil {
			return params, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		params.Tools = append(params.Tools, tool)
	}
	return params, nil
}

func message(m model.Message, names *httpapi.ToolNames) (openai.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case model.RoleUser:
		return openai.UserMessage(m.Content), nil
	case model.RoleAssistant:
		return assistantMessage(m, names), nil
	case model.RoleTool:
		return openai.ToolMessage(m.Content, m.ToolCallID), nil
	}
	return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown role %q", m.Role)
}

// assistantMessage replays an earlier turn. Content is left out (null) when
// the turn only called tools, as the API itself answers.
func assistantMessage(m model.Message, names *httpapi.ToolNames) openai.ChatCompletionMessageParamUnion {
	var a openai.ChatCompletionAssistantMessageParam
	if m.Content != "" || len(m.ToolCalls) == 0 {
		a.Content.OfString = openai.String(m.Content)
	}
	for _, c := range m.ToolCalls {
		a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
				ID: c.ID,
				Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{
					Name:      names.Wire(c.Name),
					Arguments: arguments(c.Args),
				},
			},
		})
	}
	return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}
}

// arguments returns the call's arguments as the JSON text the API carries,
// exactly as the model produced them, even when they do not parse.
func arguments(args json.RawMessage) string {
	if len(args) == 0 {
		return "{}"
	}
	return string(args)
}

// functionTool offers one tool. The schema's top-level keys are kept as raw
// JSON, so nested order and every keyword reach the server unchanged; an
// empty schema becomes "an object with no properties", which every
// OpenAI-compatible server accepts.
func functionTool(t model.Tool, wireName string) (openai.ChatCompletionToolUnionParam, error) {
	schema := shared.FunctionParameters{"type": "object", "properties": map[string]any{}}
	if len(t.Parameters) > 0 {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(t.Parameters, &raw); err != nil {
			return openai.ChatCompletionToolUnionParam{}, fmt.Errorf("parameters are not a JSON object: %w", err)
		}
		schema = make(shared.FunctionParameters, len(raw))
		for k, v := range raw {
			schema[k] = v
		}
	}
	def := shared.FunctionDefinitionParam{Name: wireName, Parameters: schema}
	if t.Description != "" {
		def.Description = openai.String(t.Description)
	}
	return openai.ChatCompletionFunctionTool(def), nil
}
