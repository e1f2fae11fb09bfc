package delegation

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/trace"
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

// DefaultApprovalTimeout is how long a call waits for an answer when
// Config.ApprovalTimeout is 0.
const DefaultApprovalTimeout = 10 * time.Minute

// defaultApprovalPoll is how often a waiting call reads its row.
const defaultApprovalPoll = 200 * time.Millisecond

// Asker answers ask verdicts inside the process that runs the agents. ok is
// false when it leaves the answer to others (the approval store). Answer may
// block, a terminal prompt does, but must return soon after ctx ends: the
// call stops waiting for it then (answered elsewhere, timed out, cancelled).
// It must be safe for concurrent use.
type Asker interface {
	Answer(ctx context.Context, a trace.Approval) (ans trace.Answer, ok bool)
}

// errApprovalCancelled is why a wait ended with the run.
var errApprovalCancelled = errors.New("the run ended while the call waited for approval")

// errUnsealed is why a stored decision was not taken: it does not carry
// the seal of the request's secret, so agentry did not write it.
var errUnsealed = errors.New("the stored decision was not written by agentry (its seal does not match the request)")

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
		sp.event(trace.EventApproval, map[string]any{
			trace.EventAttrVerdict: string(trace.ApprovalApproved), trace.EventAttrDecidedBy: by,
			trace.EventAttrForRun: true, trace.EventAttrReason: "approved earlier for this run",
		})
		return "", ""
	}
	cfg := rn.rt.cfg
	a := trace.Approval{
		ID: trace.NewRunID(), RunID: rn.trace.ID, SpanID: sp.s.ID, Agent: inv.agent.Name, Tool: toolName,
		Subject: subject, Arguments: args, Reason: dec.Reason, Status: trace.ApprovalPending, RequestedAt: cfg.Now(),
		Secret: trace.NewApprovalSecret(),
	}
	var got trace.Approval
	var err error
	if waited {
		got, err = inv.engineAnswer(sp, engine)
	} else {
		sp.event(trace.EventApprovalRequested, map[string]any{trace.EventAttrApprovalID: a.ID, trace.EventAttrAsk: dec.Reason})
		got, err = rn.rt.wait(ctx, a)
	}
	attrs := map[string]any{
		trace.EventAttrApprovalID: got.ID, trace.EventAttrVerdict: string(got.Status),
		trace.EventAttrDecidedBy: got.DecidedBy, trace.EventAttrForRun: got.ForRun,
	}
	if got.Note != "" {
		attrs[trace.EventAttrReason] = got.Note
	}
	if err != nil {
		attrs[trace.EventAttrError] = err.Error()
	}
	sp.eventAt(got.DecidedAt, trace.EventApproval, attrs)
	switch {
	case got.Status == trace.ApprovalApproved:
		if got.ForRun {
			rn.forRun.add(subject, got.DecidedBy)
		}
		return "", ""
	case errors.Is(err, errApprovalCancelled):
		return fmt.Sprintf("not run: %v", context.Cause(ctx)), failed(ctx, context.Cause(ctx)).Status
	}
	why := fmt.Sprintf("denied by %s: %s", got.DecidedBy, got.Note)
	if got.Note == "" {
		why = "denied by " + got.DecidedBy
	}
	return fmt.Sprintf("the call of %s was not approved (%s)", toolName, why), trace.StatusDenied
}

// wait gets a's answer: the Asker's, or whatever the store's row says
// first, or the timeout's, or the run's end. The approval it returns is
// decided; err is set when no person answered (timeout, cancel, a store
// that failed).
func (r *Runtime) wait(ctx context.Context, a trace.Approval) (trace.Approval, error) {
	cfg := r.cfg
	timeout := cfg.ApprovalTimeout
	if timeout <= 0 {
		timeout = DefaultApprovalTimeout
	}
	store := cfg.Approvals
	if store == nil {
		store = trace.NewMemory() // this process alone answers
	}
	if err := store.RequestApproval(ctx, a); err != nil {
		return a.Decided(trace.Answer{By: "agentry", Note: "the request could not be recorded: " + err.Error(), At: cfg.Now()}), err
	}
	waitCtx, stop := context.WithCancel(ctx)
	defer stop()
	answered := make(chan trace.Answer, 1)
	if cfg.Asker != nil {
		go func() {
			if ans, ok := cfg.Asker.Answer(waitCtx, a); ok {
				answered <- ans
			}
		}()
	}
	poll := cfg.ApprovalPoll
	if poll <= 0 {
		poll = defaultApprovalPoll
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	decide := func(ans trace.Answer, err error) (trace.Approval, error) {
		got, derr := store.DecideApproval(context.WithoutCancel(ctx), a.ID, ans)
		switch {
		case errors.Is(derr, trace.ErrDecided) && a.Confirms(got):
			return got, nil // someone answered first: theirs stands
		case errors.Is(derr, trace.ErrDecided):
			derr = errUnsealed
		}
		if derr != nil {
			return a.Decided(ans), errors.Join(err, derr)
		}
		return got, err
	}
	for {
		select {
		case ans := <-answered:
			return decide(ans, nil)
		case <-deadline.C:
			return decide(trace.Answer{By: "timeout", Note: fmt.Sprintf("no answer within approval_timeout (%s)", timeout), At: cfg.Now()},
				errors.New("approval timed out"))
		case <-ctx.Done():
			return decide(trace.Answer{By: "agentry", Note: errApprovalCancelled.Error(), At: cfg.Now()}, errApprovalCancelled)
		case <-tick.C:
			// Only a decision sealed with this request's secret is an
			// answer: one written around agentry is not (DESIGN §12).
			got, err := store.Approval(ctx, a.ID)
			if err == nil && got.Status != trace.ApprovalPending && a.Confirms(got) {
				return got, nil
			}
		}
	}
}

// askSubject is what an approval for this run of the call covers: the
// tool, or for a command pattern the pattern itself, so approving one
// `git push` for the run does not approve every shell command.
func askSubject(toolName string, dec permissions.Decision) string {
	if _, _, ok := permissions.SplitPattern(dec.Pattern); ok {
		return dec.Pattern
	}
	return toolName
}

// gateTool holds a plain tool call that needs approval; it returns the
// result text and status of a call that may not run, "" when it may.
func (inv *invocation) gateTool(ctx context.Context, sp *span, c model.ToolCall) (string, trace.Status) {
	dec, ask := inv.askTool(c)
	if !ask {
		return "", ""
	}
	return inv.approve(ctx, sp, c.Name, askSubject(c.Name, dec), string(c.Args), dec)
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

// AskerFunc adapts a function to Asker.
type AskerFunc func(ctx context.Context, a trace.Approval) (trace.Answer, bool)

// Answer calls f.
func (f AskerFunc) Answer(ctx context.Context, a trace.Approval) (trace.Answer, bool) {
	return f(ctx, a)
}

type answerKey struct{}

// WithAnswer gives a durable engine's step the decided approval of its
// call (the engine asked and waited for it), so the call does not wait
// again: approve records the decision as in-process.
func WithAnswer(ctx context.Context, a trace.Approval) context.Context {
	return context.WithValue(ctx, answerKey{}, a)
}

func answerOf(ctx context.Context) (trace.Approval, bool) {
	a, ok := ctx.Value(answerKey{}).(trace.Approval)
	return a, ok
}

// engineAnswer is approve's path when the engine waited for the answer
// got: it records the request (at its own time) on sp and returns the
// decision as wait would have.
func (inv *invocation) engineAnswer(sp *span, got trace.Approval) (trace.Approval, error) {
	sp.eventAt(got.RequestedAt, trace.EventApprovalRequested, map[string]any{trace.EventAttrApprovalID: got.ID, trace.EventAttrAsk: got.Reason})
	switch {
	case got.DecidedBy == "timeout":
		return got, errors.New("approval timed out")
	case got.DecidedBy == "agentry" && got.Note == errApprovalCancelled.Error():
		return got, errApprovalCancelled
	}
	return got, nil
}
