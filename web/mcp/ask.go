package mcp

import (
	"context"
	"errors"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentry/agentry/delegation/progress"
	"github.com/agentry/agentry/trace/approval"
)

// The answers an elicitation offers for a call that asks, as the web's
// approvals page and the CLI's prompt offer them.
const (
	answerApprove       = "approve"
	answerApproveForRun = "approve for the rest of this run"
	answerDeny          = "deny"
)

// askSchema is the form the client's user fills in: one choice and an
// optional reason (a denial's reason reaches the agent's model).
var askSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"decision": map[string]any{"type": "string", "title": "Decision",
			"enum": []string{answerApprove, answerApproveForRun, answerDeny}},
		"note": map[string]any{"type": "string", "title": "Reason (optional)",
			"description": "Why; a denial's reason is passed to the agent"},
	},
	"required": []string{"decision"},
}

// multiRoundTrip is the first protocol version in which a server may not
// send a request (elicitation/create) while it serves one: it answers with
// input requests and the client calls again (SEP-2322).
const multiRoundTrip = "2026-07-28"

// canElicit reports whether the client said at initialize that it can
// show a form to its user, on a protocol where the server may ask while
// the call goes (the clients of 2025: Claude Code, VS Code, the SDKs'
// clients on 2025-11-25). On a multi-round-trip protocol the ask waits
// for the web or the CLI alone: a call whose run goes on between two
// round trips is not built yet (docs/mcp-server.md).
func canElicit(ss *sdk.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil && p.ProtocolVersion < multiRoundTrip
}

// ask asks the client's user about approval a, while it waits. The usual
// places (the web's approvals page, `agentry approvals`) can answer it
// too; the first answer wins, and the form is withdrawn once it is
// answered elsewhere. Declining the form denies the call; dismissing it
// leaves the call to the other places.
func (c *call) ask(a approval.Approval) {
	ctx, cancel := context.WithCancel(c.ctx)
	c.mu.Lock()
	if c.asking == nil {
		c.asking = map[string]context.CancelFunc{}
	}
	c.asking[a.ID] = cancel
	c.mu.Unlock()
	c.wg.Go(func() {
		defer cancel()
		res, err := c.req.Session.Elicit(ctx, &sdk.ElicitParams{Mode: "form", Message: askMessage(a), RequestedSchema: askSchema})
		if err != nil {
			if ctx.Err() == nil {
				c.s.cfg.Log.Info("mcp: elicitation failed; the call waits for the web or the CLI", "approval", a.ID, "err", err)
			}
			return
		}
		ans, ok := answerOf(res, callerOf(c.req.Session).Name)
		if !ok {
			return
		}
		if _, err := c.s.cfg.Approvals.DecideApproval(context.WithoutCancel(ctx), a.ID, ans); err != nil && !errors.Is(err, approval.ErrDecided) {
			c.s.cfg.Log.Warn("mcp: the answer was not recorded", "approval", a.ID, "err", err)
		}
	})
}

// answered withdraws the form of an approval answered elsewhere.
func (c *call) answered(a approval.Approval) {
	c.mu.Lock()
	cancel := c.asking[a.ID]
	delete(c.asking, a.ID)
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// askMessage is what the client's user reads: who wants to call what,
// with which arguments, and why it asks.
func askMessage(a approval.Approval) string {
	what := "call " + a.Tool
	if a.Tool == "delegate" {
		what = "delegate to " + a.Subject
	}
	return fmt.Sprintf("agentry: %s wants to %s %s\n%s\nApprove?", a.Agent, what, progress.OneLine(a.Arguments, 300), a.Reason)
}

// answerOf is the approval answer in an elicitation's result, by the
// client's user; false when the user dismissed the form.
func answerOf(res *sdk.ElicitResult, client string) (approval.Answer, bool) {
	by := "mcp"
	if client != "" {
		by = "mcp:" + client
	}
	ans := approval.Answer{By: by, At: time.Now()}
	switch res.Action {
	case "decline":
		ans.Note = "declined in the MCP client"
		return ans, true
	case "accept":
	default:
		return ans, false
	}
	ans.Note, _ = res.Content["note"].(string)
	switch res.Content["decision"] {
	case answerApprove:
		ans.Approve = true
	case answerApproveForRun:
		ans.Approve, ans.ForRun = true, true
	}
	return ans, true
}
