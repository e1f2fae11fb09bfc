package delegation

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// RemoteAgent is a sub-agent that runs elsewhere: an A2A agent named under
// a2a: in agentry.yaml (delegation/a2a adapts it). It is a delegation
// target like a file's agent: offered in the delegate tool's enum, decided
// by the same subagents rules, the global disabled list and max_depth, and
// recorded as an invoke_agent span under the delegate call (on Temporal,
// Steps.Remote as an activity of its own). It cannot
// delegate further from here (what it does there is its own), and an agent
// file with the same id shadows it.
type RemoteAgent struct {
	Name        string // its id here
	Description string // what the delegate tool says of it
	// Timeout bounds each delegation to it (0: only the run's limits),
	// from the delegation's first attempt (RemoteAttempt.Since).
	Timeout time.Duration
	// Remote carries a delegation there and back.
	Remote Remote
}

// Remote is the far end of a RemoteAgent.
type Remote interface {
	// Send hands the agent a task and waits for its end, which it reports
	// as an outcome: a failure to reach the agent is an error outcome
	// naming where, never a panic. When ctx ends first Send asks the agent
	// to stop (A2A's tasks/cancel) and reports what ctx's cause says,
	// unless the engine hands the task to a later attempt: ctx's cause
	// is then ErrHandedOver (HandedOver).
	Send(ctx context.Context, t RemoteTask) RemoteOutcome
}

// RemoteTask is what a remote agent is given.
type RemoteTask struct {
	Task string
	// Context is what the delegator passes beside the task (a summary of
	// its conversation, a free-text note), "" for none; History is its
	// conversation in context mode full.
	Context string
	History []model.Message
	// Status is told each state the remote task reports while it goes
	// (its id, the state, the remote's message), on Send's goroutine.
	Status func(RemoteStatus)
	RemoteAttempt
}

// RemoteAttempt is what an engine that retries a lost call (Temporal)
// gives Send so a retry does not hand the agent the task a second time:
// the zero value (in-process, which never retries) sends it.
type RemoteAttempt struct {
	// Resume names the task an earlier attempt of this delegation started:
	// Send follows that task to its end instead of sending a new one.
	Resume *RemoteRef
	// Started is told the task as soon as the remote names it (and at once
	// when resuming), for the engine to keep where a retry finds it.
	Started func(RemoteRef)
	// Since is when the delegation's first attempt started, which the
	// agent's Timeout counts from, so a task followed attempt after
	// attempt still ends at the timeout; zero: now.
	Since time.Time
}

// since is how long ago the delegation's first attempt started.
func (a RemoteAttempt) since() time.Duration {
	if a.Since.IsZero() {
		return 0
	}
	return time.Since(a.Since)
}

// ErrHandedOver is Steps.Remote's error when the attempt handed its task
// to a later one (HandedOver): the delegation has not ended,
// and its span is left for the attempt that follows the task. An engine
// that retries a lost call (Temporal) also ends a call's context with it
// as the cause when it hands the call over (HandedOver).
var ErrHandedOver = errors.New("the call is left to its next attempt")

// HandedOver says ctx has ended because the engine hands its call (a
// model call, a tool call, a remote task) to a later attempt, which makes
// it again with the same span IDs (Temporal: the attempt was timed out,
// paused or reset, or its worker stops, and a retry follows;
// ErrLastAttemptLost else): the call has not ended, so its span is left
// open, running, for that attempt to end, rather than ended cancelled
// (which the live timeline would show and the metrics count). A remote
// task is left running, with no cancel sent, for the attempt that
// follows it (RemoteOutcome.HandedOver).
func HandedOver(ctx context.Context) bool {
	return ctx.Err() != nil && errors.Is(context.Cause(ctx), ErrHandedOver)
}

// ErrLastAttemptLost is the cause an engine that retries a lost call gives
// a delegation's context (or a workflow run's) when it loses the last
// attempt its retry policy allows (Temporal: the worker lost or stopping,
// the attempt timed out): no later attempt would take on what it leaves
// going, a remote task or a run's agents, so it is not handed over but
// cancelled, as a cancel cancels it, and the delegation (or run) ends with
// status error, this cause its message.
var ErrLastAttemptLost = errors.New("worker lost on the last attempt")

// RemoteRef names one task of a remote agent.
type RemoteRef struct {
	Card      string // the card URL of the agent it runs at
	TaskID    string
	ContextID string `json:",omitempty"`
}

// RemoteStatus is one state of a remote task as it goes.
type RemoteStatus struct {
	TaskID, State, Message string
}

// RemoteOutcome is how a remote task ended, in the delegate result's
// terms, with what the trace should know of it (the task id, the card's
// URL) as span attributes.
type RemoteOutcome struct {
	Status     trace.Status
	Result     string
	Error      string
	Attributes map[string]any
	// HandedOver says the task was left running for a later attempt
	// (HandedOver): nothing else in the outcome counts.
	HandedOver bool
}

// remote returns the remote agent named name.
func (r *Runtime) remote(name string) (*RemoteAgent, bool) {
	for i := range r.cfg.Remote {
		if r.cfg.Remote[i].Name == name {
			return &r.cfg.Remote[i], true
		}
	}
	return nil, false
}

// Target is ra as the runtime decides it as a delegation target, which
// the permission views (agentry permissions, the web UI's graph and
// explorer) decide with the same rules.
func (ra *RemoteAgent) Target() permissions.Agent { return ra.agent().Permissions() }

// agent is ra as a delegation target: enabled, unable to delegate here.
func (ra *RemoteAgent) agent() registry.Agent {
	return registry.Agent{Name: ra.Name, Description: ra.Description, Enabled: true, Timeout: ra.Timeout,
		Subagents: registry.Subagents{Rules: permissions.Rules{Allow: []string{}}}}
}

// runRemote carries an admitted delegation c to a remote agent and back:
// an invoke_agent span under the delegate call stands for the work done
// there, with the remote task's id and state and an event per state it
// reported. It gives back the run-wide slot the delegation held.
func (inv *invocation) runRemote(ctx context.Context, d *delegation, c *child, passed string, at RemoteAttempt) (o loop.Outcome, err error) {
	defer inv.rn.global.Release()
	ra := d.remote
	sp := inv.rn.startSpan(trace.KindInvokeAgent, "invoke_agent "+ra.Name, c.parentID, ra.Name, inv.depth+1, map[string]any{
		semconv.AttrTask: c.task, semconv.AttrContextMode: word(c.mode), semconv.AttrContextPassed: c.passed,
		semconv.AttrRemoteProtocol: "a2a"})
	used := inv.rn.track(ra.Name, c.task, inv.depth+1)
	if ra.Timeout > 0 { // already past on a late retry: Send cancels the task at once
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, ra.Timeout-at.since(), AgentTimedOut(ra.Name, ra.Timeout))
		defer stop()
	}
	// The remote joins this trace under the span that stands for it (an
	// agentry there puts the traceparent on its run's root span).
	out := ra.send(model.WithSpan(ctx, sp.s.RunID, sp.s.ID), RemoteTask{Task: c.task, Context: passed, History: c.history, Status: func(st RemoteStatus) {
		attrs := map[string]any{semconv.EventAttrState: st.State, semconv.AttrA2ATaskID: st.TaskID}
		if st.Message != "" {
			attrs[semconv.EventAttrMessage] = st.Message
		}
		sp.event(semconv.EventRemoteStatus, attrs)
	}, RemoteAttempt: at})
	if out.HandedOver { // the next attempt follows the task and ends the span
		return loop.Outcome{}, ErrHandedOver
	}
	o = loop.Outcome{Status: out.Status, Result: out.Result, Error: out.Error}
	if ctx.Err() != nil && o.Status != trace.StatusOK { // the remote heard the cancel; the cause says why
		o = failed(ctx, ctx.Err())
	}
	attrs := make(map[string]any, len(out.Attributes)+1)
	for k, v := range out.Attributes {
		attrs[k] = v
	}
	attrs[semconv.AttrResult] = o.Result
	sp.end(o.Status, o.Error, attrs)
	used.end(o, inv.rn)
	d.remoteAttrs = out.Attributes
	return o, nil
}

// send is Remote.Send that survives a panic: the adapter's becomes this
// delegation's error, and its span still ends.
func (ra *RemoteAgent) send(ctx context.Context, t RemoteTask) (out RemoteOutcome) {
	defer func() {
		if v := recover(); v != nil {
			out = RemoteOutcome{Status: trace.StatusError, Error: recovered("remote agent "+ra.Name, v).Error()}
		}
	}()
	return ra.Remote.Send(ctx, t)
}

// remoteContext is what a local child would read before its task (the
// summary, the delegator's note; childOf and withNote put it there), on
// its own: the remote gets the task and the context as separate parts.
func remoteContext(c *child) string {
	return strings.TrimSuffix(c.message, "\n\nYour task:\n"+c.task)
}
