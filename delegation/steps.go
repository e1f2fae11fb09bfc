package delegation

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/hooks"
	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/semconv"
)

// Steps carries out the actions of the loop (package loop) one at a time
// from plain data (a Frame), for an engine that persists between actions
// and drives the machine itself (delegation/temporal). Each step rebuilds
// the invocation and runs the in-process runtime's own code for
// permissions, depth, hooks, models, tools and spans, so the two engines
// share the loop and the steps, not copies of them. Every step is safe to
// run again with the same Key: its spans get the same IDs, so a retried
// step overwrites its first record instead of adding one. Safe for
// concurrent use.
type Steps struct{ rt *Runtime }

// Steps returns the step API of r.
func (r *Runtime) Steps() *Steps { return &Steps{rt: r} }

// Frame is one agent invocation as plain data: where it is in the tree,
// its conversation so far, and what its loop needs to know (Spec).
type Frame struct {
	RunID    string
	RunModel string   // Request.Model of the run ("" = each agent's own)
	Branch   []string // agent names, root … this agent
	Depth    int
	Model    string // the model spec this invocation runs on
	Span     trace.Span
	Conv     []model.Message
	Calls    int // model calls made so far, retries included
	Spec     loop.Spec
	// Timeout is the agent's timeout (0 = none); Asks says some tool
	// call may need approval (steps_approval.go).
	Timeout time.Duration `json:",omitempty"`
	Asks    bool          `json:",omitempty"`
	// Deadline is when the invocation's timeout (or the run's) ends it,
	// and Cut why, in the in-process words: a model or tool call under way
	// then ends as it does in-process, with that cause, rather than with
	// the engine's bare cancellation. Set by a durable driver.
	Deadline time.Time `json:",omitzero"`
	Cut      string    `json:",omitempty"`
	// Budget is the run's effective budget (set by Root; the engine keeps
	// the ledger over the tree) and BudgetSpent why it tripped ("" while
	// it has not): a Check step then refuses as in-process.
	Budget      registry.Budget
	BudgetSpent string `json:",omitempty"`
	// Caps are the run-wide caps the engine counts over the tree, and
	// AgentsFull says the run's max_agents_per_run is used up, so a
	// Check step refuses as in-process.
	Caps       RunCaps
	AgentsFull bool `json:",omitempty"`
	// FlowStep is a workflow run's invocation (Steps.Open): it holds a
	// max_concurrent slot of the run's, which it gives back as it ends.
	FlowStep bool `json:",omitempty"`
	// Inline is the branch's root agent when it is given, not named (a
	// workflow's agent, Steps.Open); Adhoc a dispatched agent, which is in
	// no agents folder. nil: every name is in the agents folder.
	Inline *registry.Agent `json:",omitempty"`
	Adhoc  *registry.Agent `json:",omitempty"`
	// TurnCalls is limits.turn_tool_calls, which a dispatched agent's
	// dispatcher counts over the agents of its model turn Turn.
	TurnCalls int `json:",omitempty"`
	Turn      int `json:",omitempty"`
	// Conversation keys the circuit breakers of the run's conversation
	// (Request.Conversation, or the run's ID).
	Conversation string `json:",omitempty"`
	// Skills are the skills each agent of Branch loaded, by index: this
	// invocation's as its Tool steps report them (Load), an ancestor's as
	// they were when it started this branch's child. Every step loads
	// them again (steps_skills.go). nil: none.
	Skills [][]string `json:",omitempty"`
}

// RunCaps are Config's run-wide caps (0 = none), for an engine that counts
// them over a tree of steps.
type RunCaps struct {
	MaxConcurrent, MaxAgents int
	TokenBudget              int64
	WindowCalls              int // limits.window_calls in Window, over the run
	Window                   time.Duration
}

// Key names one attempt-independent step, for span IDs: a retried step
// passes the same Key.
type Key string

// Root records run (Status running) and opens its root invocation. A
// non-nil Outcome means the run ended at once (a run_start hook blocked).
func (s *Steps) Root(ctx context.Context, key Key, run trace.Run, req Request) (Frame, *loop.Outcome, error) {
	rn := s.run(key, run.ID, req.Model)
	rn.tags = req.Attributes
	if req.Conversation != "" { // a follow-up: the root starts from the conversation so far
		rn.conversation = req.Conversation
	}
	agent, m, err := s.startable(rn, req)
	rn.limits = s.rt.limitsFor(&agent)
	if err != nil { // recorded as the in-process runtime records a rejected run
		run.Agent, run.Task, run.Model, run.Status, run.Error, run.EndedAt = req.Agent, req.Task, req.Model, trace.StatusError, err.Error(), s.rt.cfg.Now()
		s.rt.cfg.Sink.RecordRun(run)
		return Frame{}, nil, err
	}
	run.Agent, run.Task, run.Model, run.Status = agent.Name, req.Task, m.spec, trace.StatusRunning
	s.rt.cfg.Sink.RecordRun(run)
	inv := rn.newInvocation(&child{agent: agent, model: m, task: req.Task, mode: registry.ContextTaskOnly, passed: req.Task, history: req.History})
	ev := hooks.Event{Agent: agent.Name, AgentType: agent.Name, Task: req.Task}
	var ended *loop.Outcome
	if block, why := rn.hook(ctx, inv.span, hooks.RunStart, ev); block {
		ended = &loop.Outcome{Status: trace.StatusDenied, Error: control.Blocked(hooks.RunStart, why)}
		inv.span.end(ended.Status, ended.Error, nil)
	}
	f := frame(inv, run.ID, req.Model, []string{agent.Name}, nil)
	f.Budget = control.EffectiveBudget(s.rt.cfg.Budget, agent.Budget, req.Budget)
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
	m, err := rn.models.forAgent(&agent, nil)
	if err != nil {
		return agent, resolved{}, fmt.Errorf("start %q: %w", req.Agent, err)
	}
	return agent, m, nil
}

// frame is inv as a Frame; above are the skills its ancestors loaded
// (Frame.Skills, without inv's own).
func frame(inv *invocation, runID, runModel string, branch []string, above [][]string) Frame {
	f := Frame{RunID: runID, RunModel: runModel, Branch: branch, Depth: inv.depth, Model: inv.model.spec,
		Span: inv.span.s, Conv: inv.conv, Spec: inv.spec(), Timeout: inv.agent.Timeout, Asks: inv.hasAsk, Skills: above}
	f.Load(inv.loadedSkills()) // its preloaded skills
	if inv.rn.conversation != runID {
		f.Conversation = inv.rn.conversation
	}
	return f
}

// Turn makes model call attempt (from 0) of f's turn, recorded as a chat
// span, and returns the loop's event with its priced cost (0: not
// priced). retry says a transient failure will be tried again.
func (s *Steps) Turn(ctx context.Context, key Key, f Frame, attempt int, retry bool) (loop.Event, float64) {
	inv, err := s.rebuild(key, f)
	if err != nil {
		return loop.Event{Kind: loop.EvModelFailed, Outcome: loop.Outcome{Status: trace.StatusError, Error: err.Error()}}, 0
	}
	inv.rn.startedAsSaid(ctx)
	ctx, stop := f.cut(ctx)
	defer stop()
	inv.req.Calls = f.Calls                       // the attempts before this one, retries included
	inv.model.chat, inv.model.chatAttrs = "", nil // the attributes of every attempt are its own
	ev := inv.attempt(ctx, f.Span.ID, &inv.req, f.Conv, model.PurposeTurn, attempt, retry)
	if ev.Kind != loop.EvModel {
		return ev, 0
	}
	ev.Resp.ToolCalls = callIDs(ev.Resp.ToolCalls, key)
	usd, _ := s.cost(f, ev.Resp)
	return ev, usd
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

// cost is the priced USD of a model call of f (ok false: not priced), so an
// engine that keeps the run's totals and budget itself counts cost as the
// in-process run does.
func (s *Steps) cost(f Frame, resp *model.Response) (usd float64, ok bool) {
	if s.rt.cfg.Prices == nil || resp == nil {
		return 0, false
	}
	return s.rt.cfg.Prices.Cost(f.Model, resp.InputTokens, resp.OutputTokens, resp.CachedInputTokens)
}

// Tool runs one tool call of f (loop.ActTool): permissions, hooks, the tool
// and its span, as in-process. The tool finds idem on its context
// (tool.IdempotencyKey). ans is the answer to the approval the call asked
// for (Ask), which the engine waited for; nil when it asked for none. It
// returns what the model reads, and the skills f's invocation has loaded
// once the call is done, which the engine adds to f (Frame.Load) so
// later steps keep what the skill tool loaded.
func (s *Steps) Tool(ctx context.Context, key Key, f Frame, c model.ToolCall, idem string, ans *approval.Approval) (string, []string, error) {
	inv, err := s.rebuild(key, f)
	if err != nil {
		return "", nil, err
	}
	inv.rn.startedAsSaid(ctx)
	ctx, stop := f.cut(ctx)
	defer stop()
	out := inv.callTool(tool.WithIdempotencyKey(withAnswer(ctx, ans), idem), c)
	return out, inv.loadedSkills(), nil
}

// cut bounds ctx by f's Deadline, with the cause an in-process invocation's
// context has then (invoke.go, run.go).
func (f Frame) cut(ctx context.Context) (context.Context, context.CancelFunc) {
	if f.Deadline.IsZero() {
		return ctx, func() {}
	}
	cause := ErrRunTimeout
	if rest, ok := strings.CutPrefix(f.Cut, ErrAgentTimeout.Error()); ok {
		cause = fmt.Errorf("%w%s", ErrAgentTimeout, rest)
	}
	return context.WithDeadlineCause(ctx, f.Deadline, cause)
}

// Close ends f's invoke_agent span with o. For the root (run not nil) it
// fires run_end and records the run's final state, and returns the outcome
// the run ends with.
func (s *Steps) Close(ctx context.Context, key Key, f Frame, o loop.Outcome, run *trace.Run) (loop.Outcome, error) {
	rn := s.run(key, f.RunID, f.RunModel)
	sp := &span{rn: rn, s: f.Span}
	if !f.Span.Status.IsFinal() { // a root whose run_start hook blocked is closed already
		sp.end(o.Status, o.Error, s.skillAttrs(key, f, map[string]any{semconv.AttrResult: o.Result}))
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
		o = loop.Outcome{Status: trace.StatusDenied, Result: o.Result, Error: control.Blocked(hooks.RunEnd, why)}
	}
	run.Status, run.Result, run.Error, run.EndedAt = o.Status, o.Result, o.Error, s.rt.cfg.Now()
	s.rt.cfg.Sink.RecordRun(*run)
	return o, nil
}

// Event adds an event to a span the engine holds (an invocation's, a
// delegation's), at the worker's clock as in-process, records it and
// returns the span with it, which the engine keeps so the span's later
// records carry it: loop.ActLimit on an invoke_agent span, loop.ActQueued
// and loop.ActAdmitted (semconv.EventQueued, semconv.EventAdmitted) on a
// delegation's. at (zero: now) is when it happened; an admitted event gets
// its waited_ms from the span's start, as in-process.
func (s *Steps) Event(_ context.Context, key Key, sp trace.Span, name string, attrs map[string]any, at time.Time) (trace.Span, error) {
	x := &span{rn: s.run(key, sp.RunID, ""), s: sp}
	if at.IsZero() {
		at = s.rt.cfg.Now()
	}
	if name == semconv.EventAdmitted {
		attrs[semconv.EventAttrWaitedMS] = at.Sub(sp.StartedAt).Milliseconds()
	}
	x.eventAt(at, name, attrs)
	return x.s, nil
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
			rn.limits = s.rt.limitsFor(&a)
		}
		inv, _ = rn.shape(&child{agent: a, parent: inv})
		if i < len(f.Branch)-1 || len(f.Loaded()) > 0 {
			inv.reload(f.loadedAt(i)) // its narrowing holds for the rest of the branch
		}
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
	inv.maxToolCalls = f.Spec.MaxToolCalls
	inv.used = rn.track(inv.agent.Name, "", inv.depth)
	return inv, nil
}

type spansOnly struct{ trace.Sink }

func (spansOnly) RecordRun(trace.Run) {}

// CallStarted is ctx saying that the call a Turn or Tool step makes began
// at t, in an attempt that was lost with its process (a durable engine's
// worker, killed): the step's span starts then, not when the step runs.
func CallStarted(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, callStartedKey{}, t)
}

type callStartedKey struct{}

// startedAsSaid makes the spans rn records start when ctx says the call
// began (CallStarted).
func (rn *run) startedAsSaid(ctx context.Context) {
	if t, ok := ctx.Value(callStartedKey{}).(time.Time); ok && !t.IsZero() {
		rn.sink = startedAt{Sink: rn.sink, at: t}
	}
}

// startedAt records spans as started at.
type startedAt struct {
	trace.Sink
	at time.Time
}

func (s startedAt) RecordSpan(sp trace.Span) {
	sp.StartedAt = s.at
	s.Sink.RecordSpan(sp)
}
