package delegation

import (
	"context"
	"errors"
	"fmt"
	"time"

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
// row's answer, and Steps.Tool runs the call with the answer on its context
// (WithAnswer), where approve records the decision on the span as
// in-process instead of waiting.

type answerKey struct{}

// WithAnswer gives a Tool step the decided approval of its call (from Ask
// and the engine's wait), so the call does not wait again.
func WithAnswer(ctx context.Context, a approval.Approval) context.Context {
	return context.WithValue(ctx, answerKey{}, a)
}

func answerOf(ctx context.Context) (approval.Approval, bool) {
	a, ok := ctx.Value(answerKey{}).(approval.Approval)
	return a, ok
}

// Asked is what Steps.Ask found: nothing to ask, a subject approved earlier
// for the run (Earlier), or a pending request to wait for.
type Asked struct {
	Approval *approval.Approval // nil: the call needs no approval
	Earlier  bool               // Approval is an earlier approval for this run of the same subject
	Timeout  time.Duration      // approval_timeout
}

// Ask checks whether tool call c of f needs approval before Tool(toolKey)
// runs it. When it does, and no earlier approval for the run covers it, it
// records the pending approval (its ID derived from toolKey, so a retried
// Ask finds its own row) and opens the call's execute_tool span, the one
// Tool will end, with the request on it. Without an approval store it
// asks nothing: the Tool step then waits inside itself, as in-process.
func (s *Steps) Ask(ctx context.Context, toolKey Key, f Frame, c model.ToolCall) (Asked, error) {
	store := s.rt.cfg.Approvals
	inv, err := s.rebuild(toolKey, f)
	if err != nil || store == nil {
		return Asked{}, err
	}
	if _, allowed := inv.tools[c.Name]; !allowed {
		return Asked{}, nil
	}
	dec, ask := inv.askTool(c)
	if !ask {
		return Asked{}, nil
	}
	attrs := map[string]any{semconv.AttrToolName: c.Name, semconv.AttrToolArguments: string(c.Args), semconv.AttrToolCallID: c.ID}
	return s.request(ctx, toolKey, f, inv, func() *span {
		return inv.rn.startSpan(trace.KindExecuteTool, "execute_tool "+c.Name, inv.span.s.ID, inv.agent.Name, inv.depth, attrs)
	}, c.Name, askSubject(c.Name, dec), string(c.Args), dec)
}

// askDelegation is DelegateAsking's request for a delegation whose target
// needs approval: nil when the step should go on (an answer is on ctx, the
// engine is not durable, or there is no store to wait on).
func (s *Steps) askDelegation(ctx context.Context, key Key, f Frame, inv *invocation, d *delegation, durable bool) (*Asked, error) {
	if _, answered := answerOf(ctx); answered || !durable || s.rt.cfg.Approvals == nil {
		return nil, nil
	}
	asked, err := s.request(ctx, key, f, inv, func() *span { return d.sp }, DelegateTool, "delegate:"+d.target.Name, string(d.call.Args), *d.ask)
	return &asked, err
}

// request records the approval a call asks for under key: none when an
// earlier approval for the run covers subject (Earlier), else the pending
// row (its ID derived from key, so a retried step finds its own row) and
// the request on the call's span (open returns it).
func (s *Steps) request(ctx context.Context, key Key, f Frame, inv *invocation, open func() *span, toolName, subject, args string, dec permissions.Decision) (Asked, error) {
	store := s.rt.cfg.Approvals
	timeout := s.rt.cfg.ApprovalTimeout
	if timeout <= 0 {
		timeout = DefaultApprovalTimeout
	}
	earlier, err := store.Approvals(ctx, approval.Filter{RunID: f.RunID, Status: approval.Approved, Limit: trace.MaxLimit})
	if err != nil {
		return Asked{}, err
	}
	for _, e := range earlier {
		if e.ForRun && e.Subject == subject {
			return Asked{Approval: &e, Earlier: true, Timeout: timeout}, nil
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
			return Asked{}, err
		}
	} else if err != nil {
		return Asked{}, fmt.Errorf("record the approval request: %w", err)
	}
	sp.eventAt(a.RequestedAt, semconv.EventApprovalRequested, map[string]any{semconv.EventAttrApprovalID: a.ID, semconv.EventAttrAsk: dec.Reason})
	return Asked{Approval: &a, Timeout: timeout}, nil
}

// TimedOut is the answer of an approval nobody answered within timeout, as
// in-process.
func TimedOut(timeout time.Duration, at time.Time) approval.Answer {
	return approval.Answer{By: "timeout", Note: fmt.Sprintf("no answer within approval_timeout (%s)", timeout), At: at}
}

// Cancelled is the answer of an approval whose run ended while it waited.
func Cancelled(at time.Time) approval.Answer {
	return approval.Answer{By: "agentry", Note: errApprovalCancelled.Error(), At: at}
}

// engineAnswer is approve's path when the engine waited for the answer
// got: it records the request (at its own time) on sp and returns the
// decision as wait would have.
func (inv *invocation) engineAnswer(sp *span, got approval.Approval) (approval.Approval, error) {
	sp.eventAt(got.RequestedAt, semconv.EventApprovalRequested, map[string]any{semconv.EventAttrApprovalID: got.ID, semconv.EventAttrAsk: got.Reason})
	switch {
	case got.DecidedBy == "timeout":
		return got, errors.New("approval timed out")
	case got.DecidedBy == "agentry" && got.Note == errApprovalCancelled.Error():
		return got, errApprovalCancelled
	}
	return got, nil
}

// Approvals is the approval store the steps record requests in (nil: none).
func (s *Steps) Approvals() approval.Store { return s.rt.cfg.Approvals }
