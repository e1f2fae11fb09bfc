package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
)

// mcpTool is one server tool offered to models as "<server>.<tool>".
type mcpTool struct {
	client *Client
	remote string // the tool's name on the server
	spec   model.Tool
}

var _ tool.Tool = (*mcpTool)(nil)

func newTool(c *Client, t *sdk.Tool) (*mcpTool, error) {
	schema := json.RawMessage(`{"type":"object","properties":{}}`)
	if t.InputSchema != nil {
		raw, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("input schema of %q: %w", t.Name, err)
		}
		schema = raw
	}
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	return &mcpTool{client: c, remote: t.Name, spec: model.Tool{
		Name: c.server.Name + "." + t.Name, Description: desc, Parameters: schema,
	}}, nil
}

// Spec returns the tool as the model sees it.
func (t *mcpTool) Spec() model.Tool { return t.spec }

// Call sends tools/call with the model's arguments and returns the result's
// text. A result marked isError comes back as an error wrapping ErrToolFailed.
// A panic while calling (in the SDK or on a malformed answer) is an error of
// this call, so one bad server cannot take the process down.
func (t *mcpTool) Call(ctx context.Context, args json.RawMessage) (out string, err error) {
	defer func() {
		if v := recover(); v != nil {
			out, err = "", tool.MarkUnavailable(fmt.Errorf("call %s: %w: %v%s", t.spec.Name, ErrPanic, v, t.client.stderr.suffix()))
		}
	}()
	if len(strings.TrimSpace(string(args))) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	res, err := t.client.session.CallTool(ctx, &sdk.CallToolParams{Name: t.remote, Arguments: args})
	if err != nil {
		err = fmt.Errorf("call %s: %w%s", t.spec.Name, err, t.client.stderr.suffix())
		if serverDown(err) {
			err = tool.MarkUnavailable(err)
		}
		return "", err
	}
	text := resultText(res)
	if res.IsError {
		return "", fmt.Errorf("%s %w: %s", t.spec.Name, ErrToolFailed, text)
	}
	return text, nil
}

// serverDown reports whether a failed call says the server failed rather
// than the call: anything but a JSON-RPC answer (a closed connection, a
// transport error), or the JSON-RPC internal error. An answer such as
// invalid params is the caller's mistake, which a circuit breaker must
// not count.
func serverDown(err error) bool {
	var we *jsonrpc.Error
	return !errors.As(err, &we) || we.Code == jsonrpc.CodeInternalError
}

// resultText joins a result's text blocks and names the other blocks briefly,
// falling back to the structured content when there are no blocks.
func resultText(res *sdk.CallToolResult) string {
	parts := make([]string, 0, len(res.Content))
	for _, c := range res.Content {
		parts = append(parts, contentText(c))
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if raw, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(raw))
		}
	}
	return strings.Join(parts, "\n")
}

func contentText(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image %s, %d bytes]", c.MIMEType, len(c.Data))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio %s, %d bytes]", c.MIMEType, len(c.Data))
	case *sdk.ResourceLink:
		return fmt.Sprintf("[resource link %s: %s]", c.Name, c.URI)
	case *sdk.EmbeddedResource:
		return embeddedText(c.Resource)
	default:
		return fmt.Sprintf("[%T content]", c)
	}
}

func embeddedText(r *sdk.ResourceContents) string {
	switch {
	case r == nil:
		return "[empty resource]"
	case r.Text != "":
		return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
	default:
		return fmt.Sprintf("[resource %s, %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob))
	}
}
