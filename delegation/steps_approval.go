package delegation

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/semconv"
)

// Approvals on an engine that persists between steps (delegation/temporal).
// The in-process gate waits inside the call; an engine must not hold a step
// open for as long as a person takes, so it splits the gate in three:
// Steps.Ask records the request (the pending row in Config.Approvals and a
// running span with the request on it), the engine waits durably for the
// row's answer, and Steps.Tool (or Steps.Start, for a delegation) runs the
// call with the answer, where approve records
// the decision on the span as in-process instead of waiting.

// Ask checks whether tool call c of f needs approval before Tool(toolKey)
// runs it. When it does, and no earlier approval for the run covers it, it
// records the pending approval (its ID derived from toolKey, so a retried
// Ask finds its own row) and opens the call's execute_tool span, the one
// Tool will end, with the request on it. Without an approval store it
// asks nothing: the Tool step then waits inside itself, as in-process.
func (s *Steps) Ask(ctx context.Context, toolKey Key, f Frame, c model.ToolCall) (control.Asked, error) {
	store := s.rt.cfg.Approvals
	inv, err := s.rebuild(toolKey, f)
	if err != nil || store == nil {
		return control.Asked{}, err
	}
	if _, allowed := inv.tools[c.Name]; !allowed {
		return control.Asked{}, nil
	}
	dec, ask := inv.askTool(c)
	if !ask {
		return control.Asked{}, nil
	}
	attrs := map[string]any{semconv.AttrToolName: c.Name, semconv.AttrToolArguments: string(c.Args), semconv.AttrToolCallID: c.ID}
	return s.request(ctx, toolKey, f, inv, func() *span {
		return inv.rn.startSpan(trace.KindExecuteTool, "execute_tool "+c.Name, inv.span.s.ID, inv.agent.Name, inv.depth, attrs)
	}, c.Name, control.Subject(c.Name, dec), string(c.Args), dec)
}

// askDelegation is Start's request for a delegation whose target needs
// approval: nil when the step should go on (an answer is on ctx, or there
// is no store to wait on).
func (s *Steps) askDelegation(ctx context.Context, key Key, f Frame, inv *invocation, d *delegation) (*control.Asked, error) {
	if _, answered := answerOf(ctx); answered || s.rt.cfg.Approvals == nil {
		return nil, nil
	}
	asked, err := s.request(ctx, key, f, inv, func() *span { return d.sp }, DelegateTool, "delegate:"+d.target.Name, string(d.call.Args), *d.ask)
	return &asked, err
}

// request records the approval a call asks for under key: none when an
// earlier approval for the run covers subject (Earlier), else the pending
// row (its ID derived from key, so a retried step finds its own row) and
// the request on the call's span (open returns it).
func (s *Steps) request(ctx context.Context, key Key, f Frame, inv *invocation, open func() *span, toolName, subject, args string, dec permissions.Decision) (control.Asked, error) {
	store := s.rt.cfg.Approvals
	timeout := s.rt.cfg.ApprovalTimeout
	if timeout <= 0 {
		timeout = control.DefaultApprovalTimeout
	}
	earlier, err := store.Approvals(ctx, approval.Filter{RunID: f.RunID, Status: approval.Approved, Limit: trace.MaxLimit})
	if err != nil {
		return control.Asked{}, err
	}
	for _, e := range earlier {
		if e.ForRun && e.Subject == subject {
			return control.Asked{Approval: &e, Earlier: true, Timeout: timeout}, nil
		}
	}
	sp := open()
	a := approval.Approval{
		ID: hashKey("approval/" + string(key))[:32], RunID: f.RunID, SpanID: sp.s.ID, Agent: inv.agent.Name, Tool: toolName,
		Subject: subject, Arguments: args, Reason: dec.Reason, Status: approval.Pending, RequestedAt: s.rt.cfg.Now(),
		Secret: approval.NewSecret(), // the store checks decisions against it (approval.Approval.Checked)
	}
	if err := store.RequestApproval(ctx, a); errors.Is(err, approval.ErrConflict) {
		if a, err = store.Approval(ctx, a.ID); err != nil { // a retried step: the row it wrote
			return control.Asked{}, err
		}
	} else if err != nil {
		return control.Asked{}, fmt.Errorf("record the approval request: %w", err)
	}
	sp.eventAt(a.RequestedAt, semconv.EventApprovalRequested, map[string]any{semconv.EventAttrApprovalID: a.ID, semconv.EventAttrAsk: dec.Reason})
	return control.Asked{Approval: &a, Timeout: timeout}, nil
}

// Approvals is the approval store the steps record requests in (nil: none).
func (s *Steps) Approvals() approval.Store { return s.rt.cfg.Approvals }
