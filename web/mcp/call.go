package mcp

import (
	"context"
	"errors"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/web/core"
)

// taskArgs is an agent tool's input: the delegate tool's task and context.
type taskArgs struct {
	Task    string `json:"task" jsonschema:"what the agent is to do"`
	Context string `json:"context,omitempty" jsonschema:"background the agent needs, given after the task"`
}

// metaTraceParent is the _meta key of a W3C traceparent (the MCP
// convention for trace context in request metadata).
const metaTraceParent = "traceparent"

// agentTool is the MCP tool of agent a.
func agentTool(a registry.Agent) *sdk.Tool {
	title := a.Name
	if a.DisplayName != "" {
		title = a.DisplayName
	}
	return &sdk.Tool{Name: a.Name, Title: title, Description: a.Description,
		Annotations: &sdk.ToolAnnotations{Title: title, OpenWorldHint: ptr(true)}}
}

func ptr[T any](v T) *T { return &v }

// callAgent runs agent name for one tools/call: the run is started as the
// web's start form starts it, its progress lines go out as progress
// notifications when the client asked for them, its asks go to the
// client's user when the client can elicit, and a cancelled call
// cancels the run. The result is the run's answer as text and its
// outcome as structuredContent; a run that did not end ok is an error.
func (s *Server) callAgent(name string) sdk.ToolHandlerFor[taskArgs, core.Outcome] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in taskArgs) (*sdk.CallToolResult, core.Outcome, error) {
		if in.Task == "" {
			return nil, core.Outcome{}, errors.New("task is required: say what the agent is to do")
		}
		ex, err := s.cfg.StartAgent(name, in.Task, in.Context, callerOf(req.Session), traceParent(req.Params.Meta))
		if err != nil {
			out := core.Outcome{Status: trace.StatusError, Agent: name, Error: err.Error()}
			var rejected *delegation.RejectedError
			if errors.As(err, &rejected) {
				out.RunID = rejected.RunID
			}
			return result(out), out, nil
		}
		out, err := s.follow(ctx, req, ex)
		if err != nil {
			return nil, core.Outcome{}, err
		}
		return result(out), out, nil
	}
}

// follow waits for the run of one tools/call (core.Follow): its progress
// lines go out as progress notifications when the client asked for them,
// its asks to the client's user when the client can elicit, and a
// cancelled call (notifications/cancelled, the client gone) cancels it.
func (s *Server) follow(ctx context.Context, req *sdk.CallToolRequest, ex core.Execution) (core.Outcome, error) {
	c := &call{s: s, req: req, ctx: ctx}
	out, err := core.Follow(ctx, s.cfg.Store, ex, c.watcher())
	c.stopAsking()
	return out, err
}

// result is the tool result of a run: its answer (or why it failed) as
// text; isError unless it ended ok. The SDK adds out as structuredContent.
func result(out core.Outcome) *sdk.CallToolResult {
	return textResult(out.Result, out.RunID, string(out.Status), out.Error, out.OK())
}

// textResult is a tool result whose text is the answer when ok, else
// which run ended how and why, then what it answered.
func textResult(answer, runID, status, why string, ok bool) *sdk.CallToolResult {
	text := answer
	if !ok {
		text = core.Ended(runID, status, why)
		if answer != "" {
			text += "\n\n" + answer
		}
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, IsError: !ok}
}

// callerOf is the MCP client as it named itself at initialize.
func callerOf(ss *sdk.ServerSession) core.Caller {
	c := core.Caller{Protocol: "mcp"}
	if ss == nil {
		return c
	}
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
		c.Name, c.Version = p.ClientInfo.Name, p.ClientInfo.Version
	}
	return c
}

// traceParent is the traceparent in a request's _meta, "" when none.
func traceParent(meta sdk.Meta) string {
	tp, _ := meta[metaTraceParent].(string)
	return tp
}

// call is one tools/call while its run goes: where progress goes and the
// elicitations it has open.
type call struct {
	s   *Server
	req *sdk.CallToolRequest
	ctx context.Context

	mu       sync.Mutex
	progress float64
	asking   map[string]context.CancelFunc // approval ID → its open elicitation
	wg       sync.WaitGroup
}

// watcher follows the run for this call: progress lines when the client
// gave a progress token, asks when the client can elicit.
func (c *call) watcher() core.Watcher {
	w := core.Watcher{Store: c.s.cfg.Store}
	if c.req.Params.GetProgressToken() != nil {
		w.Line = c.notify
	}
	if c.s.cfg.Approvals != nil && canElicit(c.req.Session) {
		w.Approvals, w.Asked, w.Answered = c.s.cfg.Approvals, c.ask, c.answered
	}
	return w
}

// notify sends one progress line as a progress notification.
func (c *call) notify(line string) {
	c.mu.Lock()
	c.progress++
	n := c.progress
	c.mu.Unlock()
	err := c.req.Session.NotifyProgress(c.ctx, &sdk.ProgressNotificationParams{
		ProgressToken: c.req.Params.GetProgressToken(), Progress: n, Message: line})
	if err != nil && c.ctx.Err() == nil {
		c.s.cfg.Log.Debug("mcp: progress notification not sent", "err", err)
	}
}

// stopAsking withdraws the elicitations still open and waits for them.
func (c *call) stopAsking() {
	c.mu.Lock()
	for _, cancel := range c.asking {
		cancel()
	}
	c.mu.Unlock()
	c.wg.Wait()
}
