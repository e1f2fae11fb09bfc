package delegation

import (
	"context"
	"fmt"
	"maps"

	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/sched"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// Session is a run that is not one root agent: a workflow run, whose root
// span is opened by the caller and whose agent invocations hang under spans
// the caller makes. It shares everything else with an agent run — the
// snapshot, models (so one script model plays every step), the run-wide
// concurrency cap, MaxAgentsPerRun, the token budget, the timeout and the
// sink — so a workflow step is an agent invocation like any delegation.
type Session struct {
	rn  *run
	ctx context.Context
}

// SessionRequest opens a Session; Name is the run's agent column (the
// workflow's name) and Task what the run was asked.
type SessionRequest struct {
	Name, Task, Model string
	// Tools, when set, is one more level of the permission chain of every
	// invocation of the session, as Request.Tools is of a run's: an outside
	// tool's workflow run is held to expose.permissions.
	Tools *permissions.Rules
}

// SpanRef is a span a Session caller opened.
type SpanRef struct{ sp *span }

// StartSession records a new run and returns it with the context its work
// runs under (carrying the run timeout and Cancel).
func (r *Runtime) StartSession(ctx context.Context, req SessionRequest) (*Session, context.Context) {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	rn := &run{rt: r, agents: r.snapshot(), sink: r.cfg.Sink, global: sched.NewFIFO(r.cfg.MaxConcurrent),
		models: r.newModelCache(req.Model), cancel: cancel, limits: r.cfg.Limits}
	rn.trace = trace.Run{ID: trace.NewRunID(), Agent: req.Name, Task: req.Task, Model: req.Model,
		Status: trace.StatusRunning, StartedAt: r.cfg.Now()}
	rn.conversation = rn.trace.ID // its own window and breakers
	if req.Tools != nil {
		rn.above = r.callerSet(*req.Tools)
	}
	rn.sink.RecordRun(rn.trace)
	if d := r.cfg.Timeout; d > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, d, ErrRunTimeout)
		_ = stop // released by cancel at Finish
	}
	return &Session{rn: rn, ctx: ctx}, ctx
}

// RunID is the session's trace ID.
func (s *Session) RunID() string { return s.rn.trace.ID }

// Cancel stops every invocation of the session.
func (s *Session) Cancel() { s.rn.cancel(ErrCancelled) }

// Agent returns the registry agent of that name from the session's snapshot.
func (s *Session) Agent(name string) (registry.Agent, bool) { return s.rn.agents.Agent(name) }

// StartSpan opens a span of the session under parent ("" for the root).
func (s *Session) StartSpan(kind trace.Kind, name, parent string, attrs map[string]any) SpanRef {
	return SpanRef{s.rn.startSpan(kind, name, parent, "", 0, attrs)}
}

// ID is the span's ID.
func (r SpanRef) ID() string { return r.sp.s.ID }

// End records the span's final state with extra attributes.
func (r SpanRef) End(status trace.Status, errText string, extra map[string]any) {
	r.sp.end(status, errText, maps.Clone(extra))
}

// Event records an event on the span.
func (r SpanRef) Event(name string, attrs map[string]any) { r.sp.event(name, attrs) }

// Invoke runs agent on task as an invocation under the span parent, through
// the same permissions, limits, model choice and tracing as a delegation.
func (s *Session) Invoke(ctx context.Context, parent string, agent registry.Agent, task string) loop.Outcome {
	m, err := s.rn.models.forAgent(&agent, nil)
	if err != nil {
		return loop.Outcome{Status: trace.StatusError, Error: fmt.Sprintf("agent %s: %v", agent.Name, err)}
	}
	if !s.rn.countAgent() {
		return loop.Outcome{Status: trace.StatusError, Error: fmt.Sprintf("agent %s: max agents per run reached", agent.Name)}
	}
	if err := s.rn.global.Acquire(ctx); err != nil {
		return failed(ctx, err)
	}
	inv := s.rn.newInvocation(&child{agent: agent, model: m, task: task, mode: registry.ContextTaskOnly, passed: task, parentID: parent})
	inv.slot = true
	return inv.run(ctx)
}

// Finish records how the session ended and releases it.
func (s *Session) Finish(status trace.Status, result, errText string) {
	s.rn.mu.Lock()
	s.rn.trace.Status, s.rn.trace.Result, s.rn.trace.Error = status, result, errText
	s.rn.trace.EndedAt = s.rn.rt.cfg.Now()
	final := s.rn.trace
	s.rn.mu.Unlock()
	s.rn.sink.RecordRun(final)
	s.rn.cancel(nil)
}
