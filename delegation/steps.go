package delegation

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/agentry/agentry/delegation/hooks"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// Steps runs a run's agent loop one step at a time, each step starting from
// plain data (a Frame), so an engine that persists between steps
// (delegation/temporal) runs the in-process code for permissions, depth,
// hooks, models, tools and spans, not a copy of it. Every step is safe to
// run again with the same Key: its spans get the same IDs, so a retried step
// overwrites its first record instead of adding one. The in-process runtime
// does not go through Steps. Safe for concurrent use.
type Steps struct{ rt *Runtime }

// Steps returns the step API of r.
func (r *Runtime) Steps() *Steps { return &Steps{rt: r} }

// Frame is one agent invocation as plain data: where it is in the tree and
// its conversation so far.
type Frame struct {
	RunID    string
	RunModel string   // Request.Model of the run ("" = each agent's own)
	Branch   []string // agent names, root … this agent
	Depth    int
	Model    string // the model spec this invocation runs on
	Span     trace.Span
	Conv     []model.Message
	Calls    int // model calls so far, retries included
	Schedule Schedule
	// Budget is the run's effective budget (set by Root; the engine keeps
	// the ledger over the tree) and BudgetSpent why it tripped ("" while
	// it has not): a Delegate step then refuses as in-process.
	Budget      registry.Budget
	BudgetSpent string
	// Caps are the run-wide caps the engine counts over the tree, and
	// AgentsFull says the run's max_agents_per_run is used up, so a
	// Delegate step refuses as in-process.
	Caps       RunCaps
	AgentsFull bool
	// FlowStep is a workflow run's invocation (Steps.Open): it holds a
	// max_concurrent slot of the run's, which it gives back as it ends.
	FlowStep bool `json:",omitempty"`
	// Inline is the branch's root agent when it is given, not named (a
	// workflow's agent, Steps.Open); nil: every name is in the agents folder.
	Inline *registry.Agent `json:",omitempty"`
	// An orchestrator's background agents (steps_dispatch.go): Adhoc is a
	// dispatched agent, which is in no agents folder, and MaxToolCalls its
	// cap; Jobs are the ids of the agents this invocation started.
	// TurnCalls is limits.turn_tool_calls, which a dispatched agent's
	// dispatcher counts over the agents of its model turn Turn.
	Adhoc        *registry.Agent `json:",omitempty"`
	MaxToolCalls int             `json:",omitempty"`
	TurnCalls    int             `json:",omitempty"`
	Turn         int             `json:",omitempty"`
	Jobs         []string        `json:",omitempty"`
	// Conversation keys the circuit breakers of the run's conversation
	// (Request.Conversation, or the run's ID).
	Conversation string `json:",omitempty"`
}

// RunCaps are Config's run-wide caps (0 = none), for an engine that counts
// them over a tree of steps.
type RunCaps struct {
	MaxConcurrent, MaxAgents int
	TokenBudget              int64
	WindowCalls              int // limits.window_calls in Window, over the run
	Window                   time.Duration
}

// Schedule is what an engine needs to know of the agent's file to schedule
// its loop: max_turns, timeout, retry attempts and backoff, and how its
// batches run.
type Schedule struct {
	MaxTurns      int
	Timeout       time.Duration // 0 = none
	Attempts      int
	Sequential    bool
	MaxConcurrent int
	Asks          bool // some tool call may need approval (steps_approval.go)
	Hidden        bool // orchestrator: true: its own tools are refused (steps_dispatch.go)
	Streaming     bool // its file's execution is parallel_streaming (StreamsTurn)
	// TurnAgents is limits.turn_agents: how many of the background agents
	// one model turn starts run at once (0 = no cap).
	TurnAgents int `json:",omitempty"`
	// LoopLimit says MaxTurns is an orchestrator's limits.orchestrator_turns.
	LoopLimit bool `json:",omitempty"`
}

// AttrIdempotencyKey is set on a tool call's execute_tool span when the
// engine gave the call an idempotency key (tool.IdempotencyKey): the same on
// every attempt of the call.
const AttrIdempotencyKey = "idempotency_key"

// Key names one attempt-independent step, for span IDs: a retried step
// passes the same Key.
type Key string

// Root records run (Status running) and opens its root invocation. A
// non-nil Outcome means the run ended at once (a run_start hook blocked).
func (s *Steps) Root(ctx context.Context, key Key, run trace.Run, req Request) (Frame, *Outcome, error) {
	rn := s.run(key, run.ID, req.Model)
	rn.tags = req.Attributes
	if req.Conversation != "" { // a follow-up: the root starts from the conversation so far
		rn.conversation = req.Conversation
	}
	agent, m, err := s.startable(rn, req)
	rn.limits = s.rt.limitsFor(agent)
	if err != nil { // recorded as the in-process runtime records a rejected run
		run.Agent, run.Task, run.Model, run.Status, run.Error, run.EndedAt = req.Agent, req.Task, req.Model, trace.StatusError, err.Error(), s.rt.cfg.Now()
		s.rt.cfg.Sink.RecordRun(run)
		return Frame{}, nil, err
	}
	run.Agent, run.Task, run.Model, run.Status = agent.Name, req.Task, m.spec, trace.StatusRunning
	s.rt.cfg.Sink.RecordRun(run)
	inv := rn.newInvocation(&child{agent: agent, model: m, task: req.Task, mode: registry.ContextTaskOnly, passed: req.Task, history: req.History})
	ev := hooks.Event{Agent: agent.Name, AgentType: agent.Name, Task: req.Task}
	var ended *Outcome
	if block, why := rn.hook(ctx, inv.span, hooks.RunStart, ev); block {
		ended = &Outcome{Status: trace.StatusDenied, Error: blocked(hooks.RunStart, why)}
		inv.span.end(ended.Status, ended.Error, nil)
	}
	f := frame(inv, run.ID, req.Model, []string{agent.Name})
	f.Budget = EffectiveBudget(s.rt.cfg.Budget, agent.Budget, req.Budget)
	f.Caps = RunCaps{MaxConcurrent: s.rt.cfg.MaxConcurrent, MaxAgents: s.rt.cfg.MaxAgentsPerRun, TokenBudget: s.rt.cfg.TokenBudget}
	if l := rn.limits; l.WindowCalls > 0 && l.Window > 0 {
		f.Caps.WindowCalls, f.Caps.Window = l.WindowCalls, l.Window
	}
	return f, ended, nil
}

// startable checks a run's request as Start does.
func (s *Steps) startable(rn *run, req Request) (registry.Agent, resolved, error) {
	agent, ok := rn.agents.Agent(req.Agent)
	if !ok {
		return agent, resolved{}, fmt.Errorf("start %q: %w", req.Agent, ErrUnknownAgent)
	}
	if dec := s.rt.cfg.Delegation.Runnable(agent.Permissions()); !dec.Allowed {
		return agent, resolved{}, fmt.Errorf("start %q: %w: %s", req.Agent, ErrAgentDisabled, dec.Reason)
	}
	m, err := rn.models.forAgent(agent, nil)
	if err != nil {
		return agent, resolved{}, fmt.Errorf("start %q: %w", req.Agent, err)
	}
	return agent, m, nil
}

func frame(inv *invocation, runID, runModel string, branch []string) Frame {
	f := Frame{RunID: runID, RunModel: runModel, Branch: branch, Depth: inv.depth, Model: inv.model.spec,
		Span: inv.span.s, Conv: inv.conv, Schedule: schedule(inv)}
	if inv.rn.conversation != runID {
		f.Conversation = inv.rn.conversation
	}
	return f
}

func schedule(inv *invocation) Schedule {
	a := inv.agent
	l := Schedule{MaxTurns: a.MaxTurns, Timeout: a.Timeout, Attempts: a.Retry.MaxAttempts,
		Sequential: a.Subagents.Execution == registry.Sequential, MaxConcurrent: a.Subagents.MaxConcurrent, Asks: inv.hasAsk, Hidden: inv.hidden,
		Streaming: a.Subagents.Execution == registry.ParallelStreaming, TurnAgents: inv.limits().TurnAgents}
	l.MaxTurns, l.LoopLimit = inv.turnCap()
	if l.Attempts <= 0 {
		l.Attempts = registry.DefaultMaxAttempts
	}
	if l.MaxConcurrent <= 0 {
		l.MaxConcurrent = registry.DefaultMaxConcurrent
	}
	return l
}

// TurnError is a failed model call: Transient ones may be tried again after
// Wait, the agent's retry backoff or the provider's Retry-After.
type TurnError struct {
	Err       string
	Transient bool
	Wait      int64 // milliseconds
}

func (e *TurnError) Error() string { return e.Err }

// Turn makes one model call for f (attempt counts from 0) and records it as
// a chat span. A failure is a *TurnError.
func (s *Steps) Turn(ctx context.Context, key Key, f Frame, attempt int) (*model.Response, error) {
	inv, err := s.rebuild(key, f)
	if err != nil {
		return nil, &TurnError{Err: err.Error()}
	}
	inv.req.Invocation, inv.req.Purpose, inv.req.Messages, inv.req.Calls = f.Span.ID, model.PurposeTurn, f.Conv, f.Calls+attempt
	attrs := map[string]any{trace.AttrModel: inv.model.spec, trace.AttrRetryAttempt: attempt}
	sp := inv.rn.startSpan(trace.KindChat, "chat "+inv.model.llm.Name(), f.Span.ID, inv.agent.Name, inv.depth, attrs)
	resp, err := generate(model.WithSpan(ctx, sp.s.RunID, sp.s.ID), inv.model, &inv.req)
	if err == nil && resp == nil {
		err = errors.New("model returned no response")
	}
	if err == nil {
		sp.s.InputTokens, sp.s.OutputTokens = resp.InputTokens, resp.OutputTokens
		sp.end(trace.StatusOK, "", inv.chatAttrs(resp))
		inv.used.addTokens(resp.InputTokens + resp.OutputTokens)
		resp.ToolCalls = callIDs(resp.ToolCalls, key)
		return resp, nil
	}
	if ctx.Err() != nil {
		sp.end(trace.StatusCancelled, err.Error(), nil)
		return nil, &TurnError{Err: err.Error()}
	}
	wait, transient := model.IsTransient(err)
	if wait <= 0 {
		wait = inv.agent.Retry.Delay(s.rt.cfg.RetryBackoff, maxRetryBackoff, attempt)
	}
	sp.end(trace.StatusError, err.Error(), panicAttrs(err))
	return nil, &TurnError{Err: fmt.Sprintf("model %s: %v", inv.model.spec, err), Transient: transient, Wait: wait.Milliseconds()}
}

// callIDs gives every call an ID, for models that leave them out; the IDs
// depend on key only, so a replayed turn names its calls the same.
func callIDs(calls []model.ToolCall, key Key) []model.ToolCall {
	for i := range calls {
		if calls[i].ID == "" {
			calls[i].ID = fmt.Sprintf("call_%s_%d", hashKey(string(key))[:8], i)
		}
	}
	return calls
}

// Tool runs one non-delegate call of f: permissions, hooks, the tool and
// its span, as in-process. The tool finds idem on its context
// (tool.IdempotencyKey).
func (s *Steps) Tool(ctx context.Context, key Key, f Frame, c model.ToolCall, idem string) (string, error) {
	inv, err := s.rebuild(key, f)
	if err != nil {
		return "", err
	}
	return inv.callTool(tool.WithIdempotencyKey(ctx, idem), c), nil
}

// Dependency is a finished call of the same batch that a delegation depends on.
type Dependency struct {
	ID, Agent string
	Outcome
}

// Delegation is a delegate call that passed its checks: its span, and the
// child invocation it starts.
type Delegation struct {
	Call  model.ToolCall
	Span  trace.Span
	Child Frame
}

// Delegate checks one delegate call of f as the in-process batch does
// (arguments, failed dependencies, permission, depth, target, model, the
// subagent_start hook) and opens its child. When the call is refused it
// returns the result the parent's model reads, and no Delegation.
func (s *Steps) Delegate(ctx context.Context, key Key, f Frame, c model.ToolCall, deps []Dependency, argErr string) (*Delegation, string, error) {
	d, refused, _, err := s.DelegateAsking(ctx, key, f, c, deps, argErr, false)
	return d, refused, err
}

// DelegateAsking is Delegate that, when durable is set and the target needs
// approval, records the request (steps_approval.go) and returns it instead
// of waiting inside the step; the engine waits, then calls it again with
// the answer on ctx (WithAnswer).
func (s *Steps) DelegateAsking(ctx context.Context, key Key, f Frame, c model.ToolCall, deps []Dependency, argErr string, durable bool) (*Delegation, string, *Asked, error) {
	inv, err := s.rebuild(key, f)
	if err != nil {
		return nil, "", nil, err
	}
	d := inv.newDelegation(0, c)
	for _, dp := range deps {
		d.deps = append(d.deps, &delegation{args: delegateArgs{ID: dp.ID, Agent: dp.Agent},
			res: delegateResult{Status: dp.Status, Result: dp.Result, Error: dp.Error}})
	}
	refused := func() (*Delegation, string, *Asked, error) {
		return nil, d.res.text(), nil, nil
	}
	switch {
	case argErr != "":
		inv.begin(d)
		inv.refuse(d, trace.StatusError, RefusedArguments, argErr, nil)
		return refused()
	case failedDependency(d) != "":
		inv.begin(d)
		inv.refuse(d, trace.StatusSkipped, RefusedDependency, failedDependency(d), nil)
		return refused()
	case !inv.prepare(d):
		return refused()
	}
	if d.ask != nil {
		if asked, err := s.askDelegation(ctx, key, f, inv, d, durable); asked != nil || err != nil {
			return nil, "", asked, err
		}
		if why, st := inv.gateDelegation(ctx, d); why != "" { // with the engine's answer, or waiting here
			inv.finish(d, st, "", why, map[string]any{trace.AttrQueuedMS: 0})
			return refused()
		}
	}
	c2 := child{agent: d.target, parent: inv, model: d.model, task: d.task, mode: d.mode, passed: d.task, parentID: d.sp.s.ID}
	switch d.mode {
	case registry.ContextSummary:
		sum, err := inv.summarize(ctx, d.sp.s.ID)
		if err != nil {
			inv.finish(d, trace.StatusError, "", "summary for the sub-agent: "+err.Error(), map[string]any{trace.AttrQueuedMS: 0})
			return refused()
		}
		c2.message = fmt.Sprintf("Context from %s (a summary of its conversation so far):\n%s\n\nYour task:\n%s", inv.agent.Name, sum, d.task)
		c2.passed = c2.message
	case registry.ContextFull:
		c2.history = slices.Clone(inv.conv[:len(inv.conv)-1])
		c2.passed = map[string]any{"messages": c2.history, "task": d.task}
	}
	if block, why := inv.rn.hook(ctx, d.sp, hooks.SubagentStart, inv.subagentEvent(d)); block {
		inv.finish(d, trace.StatusDenied, "", blocked(hooks.SubagentStart, why), map[string]any{trace.AttrQueuedMS: 0})
		return refused()
	}
	ch := inv.rn.newInvocation(&c2)
	cf := frame(ch, f.RunID, f.RunModel, append(slices.Clone(f.Branch), d.target.Name))
	cf.Inline = f.Inline
	return &Delegation{Call: c, Span: d.sp.s, Child: cf}, "", nil, nil
}

// Finish ends a delegation of f with its child's outcome (after the
// subagent_stop hook) and returns the result its parent's model reads.
func (s *Steps) Finish(ctx context.Context, key Key, f Frame, dl Delegation, o Outcome) (string, error) {
	inv, err := s.rebuild(key, f)
	if err != nil {
		return "", err
	}
	d := inv.newDelegation(0, dl.Call)
	d.sp, d.started = &span{rn: inv.rn, s: dl.Span}, dl.Span.StartedAt
	if t, ok := inv.rn.agents.Agent(d.args.Agent); ok {
		d.target = t
	} else {
		d.target = inv.generalPurpose()
	}
	d.mode, _ = dl.Span.Attributes[trace.AttrContextMode].(string)
	ev := inv.subagentEvent(d)
	ev.Status, ev.Result, ev.Error = string(o.Status), &o.Result, o.Error
	if block, why := inv.rn.hook(ctx, d.sp, hooks.SubagentStop, ev); block {
		o = Outcome{Status: trace.StatusDenied, Error: blocked(hooks.SubagentStop, why)}
	}
	inv.finish(d, o.Status, o.Result, o.Error, map[string]any{trace.AttrQueuedMS: 0})
	return d.res.text(), nil
}

// Close ends f's invoke_agent span with o. For the root (run not nil) it
// fires run_end and records the run's final state, and returns the outcome
// the run ends with.
func (s *Steps) Close(ctx context.Context, key Key, f Frame, o Outcome, run *trace.Run) (Outcome, error) {
	rn := s.run(key, f.RunID, f.RunModel)
	sp := &span{rn: rn, s: f.Span}
	if !f.Span.Status.IsFinal() { // a root whose run_start hook blocked is closed already
		sp.end(o.Status, o.Error, map[string]any{trace.AttrResult: o.Result})
	} else if run != nil {
		run.Status, run.Error, run.EndedAt = o.Status, o.Error, s.rt.cfg.Now()
		s.rt.cfg.Sink.RecordRun(*run)
		return o, nil
	}
	if run == nil {
		return o, nil
	}
	ev := hooks.Event{Agent: f.Branch[0], AgentType: f.Branch[0], Task: run.Task,
		Status: string(o.Status), Result: &o.Result, Error: o.Error}
	if block, why := rn.hook(ctx, sp, hooks.RunEnd, ev); block {
		o = Outcome{Status: trace.StatusDenied, Result: o.Result, Error: blocked(hooks.RunEnd, why)}
	}
	run.Status, run.Result, run.Error, run.EndedAt = o.Status, o.Result, o.Error, s.rt.cfg.Now()
	s.rt.cfg.Sink.RecordRun(*run)
	return o, nil
}

// run is the state one step shares: a fresh registry snapshot, the
// configured sink for spans only (the engine records the run itself, with
// totals over the whole tree), and span IDs that depend on key alone.
func (s *Steps) run(key Key, runID, runModel string) *run {
	rn := &run{rt: s.rt, agents: s.rt.snapshot(), sink: spansOnly{s.rt.cfg.Sink},
		models: s.rt.newModelCache(runModel), cancel: func(error) {}}
	rn.trace.ID = runID
	rn.conversation = runID // Root sets a follow-up's conversation
	var n int
	rn.spanID = func() string { n++; return hashKey(fmt.Sprintf("%s/%d", key, n))[:16] }
	return rn
}

func hashKey(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// rebuild turns f back into an invocation: the branch's agents from the
// current snapshot, its permission chain, tools and offer, its model.
func (s *Steps) rebuild(key Key, f Frame) (*invocation, error) {
	rn := s.run(key, f.RunID, f.RunModel)
	if f.Conversation != "" {
		rn.conversation = f.Conversation
	}
	if f.BudgetSpent != "" {
		rn.budget.why = f.BudgetSpent
		rn.budget.tripped.Store(true)
	}
	if f.AgentsFull {
		rn.invokes.Store(int64(s.rt.cfg.MaxAgentsPerRun))
	}
	var inv *invocation
	for i, name := range f.Branch {
		a, ok := rn.agents.Agent(name)
		if i == 0 && f.Inline != nil {
			a, ok = *f.Inline, true
		}
		if f.Adhoc != nil && i == len(f.Branch)-1 {
			a, ok = *f.Adhoc, true
		}
		if !ok && name == permissions.GeneralPurpose && inv != nil {
			a, ok = inv.generalPurpose(), true
		}
		if !ok {
			return nil, fmt.Errorf("agent %q: %w", name, ErrUnknownAgent)
		}
		if i == 0 {
			rn.limits = s.rt.limitsFor(a)
		}
		inv, _ = rn.shape(&child{agent: a, parent: inv})
	}
	if inv == nil {
		return nil, errors.New("frame without agents")
	}
	llm, err := rn.models.get(f.Model)
	if err != nil {
		return nil, err
	}
	inv.model = resolved{llm: llm, spec: f.Model}
	inv.span = &span{rn: rn, s: f.Span}
	inv.conv = f.Conv
	inv.req = inv.request()
	inv.used = rn.track(inv.agent.Name, "", inv.depth)
	return inv, nil
}

type spansOnly struct{ trace.Sink }

func (spansOnly) RecordRun(trace.Run) {}
