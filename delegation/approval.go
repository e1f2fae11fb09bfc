package delegation

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/semconv"
)

// The approval gate (DESIGN §10). A call whose permission verdict is ask
// waits on its own span, in its own branch, until it is answered: first by
// the Config.Asker of this process (--approve, --deny-asks, a terminal
// prompt), and all along by whoever answers the pending row in
// Config.Approvals (the web UI, `agentry approvals`, from any process on
// the same database). Only a decision sealed with the request's secret,
// which this process keeps, counts: one written into the row around
// agentry (a command that reached the database) is ignored (DESIGN §12).
// No answer within Config.ApprovalTimeout is a denial
// with that reason; a cancelled run ends the wait and denies the row. An
// approval "for this run" lets every later call of the same subject (the
// tool, or the delegation target) in the run through without asking.

// forRun is the set of subjects approved for the rest of a run.
type forRun struct {
	mu sync.Mutex
	m  map[string]string // subject → who approved
}

func (f *forRun) get(subject string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	by, ok := f.m[subject]
	return by, ok
}

func (f *forRun) add(subject, by string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string]string{}
	}
	f.m[subject] = by
}

// askTool is the ask check of a plain tool call: the decision when the call
// needs approval. A call the permissions deny is left to runTool, which
// refuses it: deny beats ask, so nobody is asked about it.
func (inv *invocation) askTool(c model.ToolCall) (permissions.Decision, bool) {
	if !inv.hasAsk {
		return permissions.Decision{}, false
	}
	t := inv.tools[c.Name]
	arg, hasArg, err := tool.PatternArgument(t, c.Args)
	hasArg = hasArg && err == nil
	if hasArg && !permissions.Command(inv.chain, c.Name, arg).Allowed {
		return permissions.Decision{}, false
	}
	return permissions.Call(inv.chain, c.Name, arg, hasArg)
}

// approve holds the call on sp until it is answered. It returns "" when
// the call may go on, else the text the model reads and the span's status.
func (inv *invocation) approve(ctx context.Context, sp *span, toolName, subject, args string, dec permissions.Decision) (string, trace.Status) {
	rn := inv.rn
	by, ok := rn.forRun.get(subject)
	engine, waited := answerOf(ctx)                // an engine's Steps.Ask and durable wait
	if waited && !ok && engine.SpanID != sp.s.ID { // an earlier approval for this run
		by, ok = engine.DecidedBy, true
	}
	if ok {
		sp.event(semconv.EventApproval, map[string]any{
			semconv.EventAttrVerdict: string(approval.Approved), semconv.EventAttrDecidedBy: by,
			semconv.EventAttrForRun: true, semconv.EventAttrReason: "approved earlier for this run",
		})
		return "", ""
	}
	cfg := rn.rt.cfg
	a := approval.Approval{
		ID: trace.NewRunID(), RunID: rn.trace.ID, SpanID: sp.s.ID, Agent: inv.agent.Name, Tool: toolName,
		Subject: subject, Arguments: args, Reason: dec.Reason, Status: approval.Pending, RequestedAt: cfg.Now(),
		Secret: approval.NewSecret(),
	}
	var got approval.Approval
	var err error
	switch {
	case waited:
		got, err = inv.engineAnswer(sp, engine)
	case ctx.Err() != nil: // the call is not made (runTool): nobody is asked about it
		return notRun(ctx)
	default:
		sp.event(semconv.EventApprovalRequested, map[string]any{semconv.EventAttrApprovalID: a.ID, semconv.EventAttrAsk: dec.Reason})
		got, err = control.Wait(ctx, a, cfg.Approvals, cfg.Asker, cfg.ApprovalTimeout, cfg.ApprovalPoll, cfg.Now)
	}
	attrs := map[string]any{
		semconv.EventAttrApprovalID: got.ID, semconv.EventAttrVerdict: string(got.Status),
		semconv.EventAttrDecidedBy: got.DecidedBy, semconv.EventAttrForRun: got.ForRun,
	}
	if got.Note != "" {
		attrs[semconv.EventAttrReason] = got.Note
	}
	if err != nil {
		attrs[semconv.EventAttrError] = err.Error()
	}
	sp.eventAt(got.DecidedAt, semconv.EventApproval, attrs)
	switch {
	case got.Status == approval.Approved:
		if got.ForRun {
			rn.forRun.add(subject, got.DecidedBy)
		}
		return "", ""
	case errors.Is(err, control.ErrApprovalCancelled):
		return notRun(ctx)
	}
	why := fmt.Sprintf("denied by %s: %s", got.DecidedBy, got.Note)
	if got.Note == "" {
		why = "denied by " + got.DecidedBy
	}
	return fmt.Sprintf("the call of %s was not approved (%s)", toolName, why), trace.StatusDenied
}

// notRun is the result text and status of a call held for approval whose
// context ended (a cancel, an engine's lost attempt): it is not made.
func notRun(ctx context.Context) (string, trace.Status) {
	return fmt.Sprintf("not run: %v", context.Cause(ctx)), failed(ctx, context.Cause(ctx)).Status
}

// gateTool holds a plain tool call that needs approval; it returns the
// result text and status of a call that may not run, "" when it may.
func (inv *invocation) gateTool(ctx context.Context, sp *span, c model.ToolCall) (string, trace.Status) {
	dec, ask := inv.askTool(c)
	if !ask {
		return "", ""
	}
	return inv.approve(ctx, sp, c.Name, control.Subject(c.Name, dec), string(c.Args), dec)
}

// gateDelegation holds a delegation whose target needs approval.
func (inv *invocation) gateDelegation(ctx context.Context, d *delegation) (string, trace.Status) {
	if d.ask == nil {
		return "", ""
	}
	return inv.approve(ctx, d.sp, DelegateTool, "delegate:"+d.target.Name, string(d.call.Args), *d.ask)
}

// eventAt is span.event at a given time (zero: now): an answer is recorded
// at the time it was given, which may be another process's clock.
func (sp *span) eventAt(t time.Time, name string, attrs map[string]any) {
	if t.IsZero() {
		t = sp.rn.rt.cfg.Now()
	}
	sp.s.Events = append(sp.s.Events[:len(sp.s.Events):len(sp.s.Events)], trace.Event{Time: t, Name: name, Attributes: attrs})
	sp.rn.sink.RecordSpan(sp.s)
}

type answerKey struct{}

// withAnswer gives a durable engine's step the decided approval of its
// call (the engine asked and waited for it), so the call does not wait
// again: approve records the decision as in-process.
func withAnswer(ctx context.Context, a *approval.Approval) context.Context {
	if a == nil {
		return ctx
	}
	return context.WithValue(ctx, answerKey{}, *a)
}

func answerOf(ctx context.Context) (approval.Approval, bool) {
	a, ok := ctx.Value(answerKey{}).(approval.Approval)
	return a, ok
}

// engineAnswer is approve's path when the engine waited for the answer
// got: it records the request (at its own time) on sp and returns the
// decision as wait would have.
func (inv *invocation) engineAnswer(sp *span, got approval.Approval) (approval.Approval, error) {
	sp.eventAt(got.RequestedAt, semconv.EventApprovalRequested, map[string]any{semconv.EventAttrApprovalID: got.ID, semconv.EventAttrAsk: got.Reason})
	switch {
	case got.DecidedBy == "timeout":
		return got, errors.New("approval timed out")
	case got.DecidedBy == "agentry" && got.Note == control.ErrApprovalCancelled.Error():
		return got, control.ErrApprovalCancelled
	}
	return got, nil
}
