package delegation

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/hooks"
	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/sched"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// invocation is one agent invocation: its place in the tree, what it may use,
// and its conversation. Its loop is a loop.Machine; the in-process driver
// (driver.go) and the steps of a durable engine (steps.go) carry out what
// the machine asks with this type's methods.
type invocation struct {
	rn     *run
	agent  registry.Agent
	branch []permissions.Agent // root … this agent
	chain  []permissions.Level // global, each ancestor's tools, this agent's
	depth  int
	model  resolved
	span   *span

	set         *toolset             // shared: what follows up to hasAsk is copied from it
	tools       map[string]tool.Tool // effective tools by name
	specs       []model.Tool         // offered to the model, sorted by name
	mayDelegate permissions.Decision
	offer       *offer // the delegate tool's decisions, when it may delegate
	slot        bool   // holds a run-wide slot
	hasAsk      bool   // the chain has ask patterns (approval.go)
	used        *spent // what this invocation spent, for a budget report (budget.go)
	conv        []model.Message
	req         model.Request

	hidden       bool             // orchestrator: true, its tools only reachable through dispatch
	maxToolCalls int              // 0 = no cap (a dispatched agent's max_tool_calls)
	toolCalls    int              // tool calls made, once it has ended
	turnOf       *sched.TurnCalls // the budget of the turn that dispatched it
	scope        *skillScope      // the skills it may use and loaded (skills_invoke.go)
}

// child describes an invocation to start.
type child struct {
	agent    registry.Agent
	parent   *invocation // nil at the root
	model    resolved
	task     string          // the task as the parent gave it
	message  string          // the first user message when it is more than task ("" = task)
	history  []model.Message // full context: the parent's messages before the task
	mode     string
	passed   any    // what the child was given, for the trace
	parentID string // span the invoke_agent span hangs under
}

// invokeRoot runs the root agent of a run.
func (rn *run) invokeRoot(ctx context.Context, agent registry.Agent, m resolved, task string) loop.Outcome {
	rn.countAgent()
	if err := rn.global.Acquire(ctx); err != nil {
		return failed(ctx, err)
	}
	inv := rn.newInvocation(&child{agent: agent, model: m, task: task, mode: registry.ContextTaskOnly, passed: task, history: rn.history})
	inv.slot = true
	ev := hooks.Event{Agent: agent.Name, AgentType: agent.Name, Task: task}
	if block, why := rn.hook(ctx, inv.span, hooks.RunStart, ev); block {
		inv.rn.global.Release()
		o := loop.Outcome{Status: trace.StatusDenied, Error: control.Blocked(hooks.RunStart, why)}
		inv.span.end(o.Status, o.Error, nil)
		return o
	}
	o := inv.run(ctx)
	rn.rootConv = inv.conv
	ev.Status, ev.Result, ev.Error = string(o.Status), &o.Result, o.Error
	if block, why := rn.hook(ctx, inv.span, hooks.RunEnd, ev); block {
		o = loop.Outcome{Status: trace.StatusDenied, Result: o.Result, Error: control.Blocked(hooks.RunEnd, why)}
	}
	return o
}

// c is passed by pointer, here and below: the struct is large, and copies
// of it at each level made a sub-agent's new goroutine grow its stack.
func (rn *run) newInvocation(c *child) *invocation {
	inv, decisions := rn.shape(c)
	attrs := make(map[string]any, 8)
	var task any = c.passed // the same string, already in an interface
	if p, ok := c.passed.(string); !ok || p != c.task {
		task = c.task
	}
	attrs[semconv.AttrTask], attrs[semconv.AttrContextMode], attrs[semconv.AttrContextPassed] = task, word(c.mode), c.passed
	attrs[semconv.AttrEffectiveTools], attrs[semconv.AttrPermissions] = inv.set.namesAttr, inv.set.permissions
	attrs[semconv.AttrModel] = c.model.specAttr()
	if c.agent.Version != "" { // the file content it runs; none for a dispatched agent
		attrs[semconv.AttrAgentVersion] = c.agent.Version
	}
	if c.model.fallback != "" {
		attrs["model_fallback"] = c.model.fallback
	}
	if c.parent == nil {
		attrs[AttrConversationID] = rn.conversation
		for k, v := range rn.tags {
			if _, taken := attrs[k]; !taken {
				attrs[k] = v
			}
		}
	}
	inv.span = rn.startSpanEvents(trace.KindInvokeAgent, inv.set.spanName, c.parentID, c.agent.Name, inv.depth, attrs,
		inv.withheld(decisions.Delegate))
	// Room for the task and the answer, all a sub-agent that answers at
	// once needs; one that calls tools grows it by append.
	inv.conv = make([]model.Message, 0, len(c.history)+2)
	inv.conv = append(inv.conv, c.history...)
	first := c.task
	if c.message != "" {
		first = c.message
	}
	inv.conv = append(inv.conv, model.Message{Role: model.RoleUser, Content: first})
	inv.req = inv.request()
	inv.used = rn.track(c.agent.Name, c.task, inv.depth)
	return inv
}

// request is the part of every model request of this invocation that does
// not change from turn to turn.
func (inv *invocation) request() model.Request {
	inv.applySkills()
	return model.Request{Agent: inv.agent.Name, System: inv.system(), Tools: inv.specs,
		Temperature: inv.agent.Sampling.Temperature, MaxTokens: inv.agent.Sampling.MaxTokens}
}

// shape works out what an invocation of c may use (its branch, permission
// chain, tools and delegation offer) without starting it, so Steps can
// rebuild an invocation from its place in the tree.
func (rn *run) shape(c *child) (*invocation, decisions) {
	inv := &invocation{rn: rn, agent: c.agent, model: c.model}
	parent := rn.above // nil at the root of most runs
	if c.parent != nil {
		inv.depth = c.parent.depth + 1
		parent = c.parent.set
	}
	ts := rn.rt.toolsets.get(rn.agents, parent, &c.agent, func() *toolset { return inv.workOut(parent) })
	inv.set = ts
	inv.branch, inv.chain, inv.tools, inv.specs = ts.branch, ts.chain, ts.tools, ts.specs
	inv.mayDelegate, inv.offer, inv.hidden, inv.hasAsk = ts.mayDelegate, ts.offer, ts.hidden, ts.hasAsk
	return inv, ts.decisions
}

// run plays the agent loop (driver.go) and records how it ended.
func (inv *invocation) run(ctx context.Context) (out loop.Outcome) {
	var extra map[string]any
	defer func() {
		if extra == nil {
			extra = make(map[string]any, len(inv.span.s.Attributes)+1)
		}
		extra[semconv.AttrResult] = out.Result
		inv.skillAttrs(extra)
		inv.span.end(out.Status, out.Error, extra)
		inv.used.end(out, inv.rn)
		// The slot goes after the span has ended, so under a cap of one no
		// span starts before the one it waited for has ended.
		if inv.slot {
			inv.rn.global.Release()
			inv.slot = false
		}
	}()
	// Tools and models recover their own panics; this catches the rest (a
	// runtime bug, a panicking sink) so the parent gets an error result
	// instead of the process dying.
	defer func() {
		if v := recover(); v != nil {
			pe := recovered("agent "+inv.agent.Name, v)
			out, extra = loop.Outcome{Status: trace.StatusError, Error: pe.Error()}, panicAttrs(pe)
		}
	}()
	if d := inv.agent.Timeout; d > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, d, AgentTimedOut(inv.agent.Name, d))
		defer stop()
	}
	return drive(ctx, inv)
}

// spec is what the loop needs to know of this invocation (loop.Spec).
func (inv *invocation) spec() loop.Spec {
	a := &inv.agent
	s := loop.Spec{Agent: a.Name, Attempts: a.Retry.MaxAttempts, Execution: a.Subagents.Execution,
		MaxConcurrent: a.Subagents.MaxConcurrent, TurnAgents: inv.limits().TurnAgents, MaxToolCalls: inv.maxToolCalls,
		Dispatcher: inv.dispatcher(), Hidden: inv.hidden, AskBudget: !inv.rn.budget.limit.IsZero()}
	s.MaxTurns, s.LoopLimit = inv.turnCap()
	s.Collects = s.Dispatcher || inv.offer != nil && inv.offer.any
	if s.Attempts <= 0 {
		s.Attempts = registry.DefaultMaxAttempts
	}
	if s.MaxConcurrent <= 0 {
		s.MaxConcurrent = registry.DefaultMaxConcurrent
	}
	if s.Hidden {
		s.Own = slices.Sorted(maps.Keys(inv.tools))
	}
	l := inv.rn.limits
	s.AskCalls = inv.turnOf != nil && inv.turnOf.Limit > 0 || l.WindowCalls > 0 && l.Window > 0
	return s
}

// turnCap is how many model calls this invocation may make: max_turns, or
// an orchestrator's limits.orchestrator_turns when that is lower (loop).
func (inv *invocation) turnCap() (n int, loopLimit bool) {
	n = inv.agent.MaxTurns
	if n <= 0 {
		n = defaultMaxTurns
	}
	if inv.dispatcher() {
		if o := inv.limits().OrchestratorTurns; o > 0 && o < n {
			return o, true
		}
	}
	return n, false
}

// callIDs gives every call an ID, for models that leave them out.
func (inv *invocation) callIDs(calls []model.ToolCall) []model.ToolCall {
	for i := range calls {
		if calls[i].ID == "" {
			calls[i].ID = fmt.Sprintf("call_%d", inv.rn.seq.Add(1))
		}
	}
	return calls
}

// attempt makes one model call of this invocation's turn (number n, from
// 0) with conv, traced as a chat span under parent, and reports it as the
// loop's event. retry says a transient failure will be tried again: the
// span then records the retry and its wait.
func (inv *invocation) attempt(ctx context.Context, parent string, req *model.Request, conv []model.Message, purpose string, n int, retry bool) loop.Event {
	req.Invocation, req.Purpose, req.Messages = inv.span.s.ID, purpose, conv
	attrs, name := inv.model.chatAttrs, inv.model.chat // the first attempt's, shared
	if attrs == nil || n > 0 || purpose != model.PurposeTurn {
		attrs = map[string]any{semconv.AttrModel: inv.model.spec, semconv.AttrRetryAttempt: n}
		if purpose != model.PurposeTurn {
			attrs["purpose"] = purpose
		}
	}
	if name == "" {
		name = "chat " + inv.model.llm.Name()
	}
	sp := inv.rn.startSpan(trace.KindChat, name, parent, inv.agent.Name, inv.depth, attrs)
	var resp *model.Response
	err := context.Cause(ctx) // no call starts on an ended context (a lost attempt's, Steps)
	if err == nil {
		resp, err = generate(model.WithSpan(ctx, sp.s.RunID, sp.s.ID), inv.model, req)
	}
	if err == nil && resp == nil {
		err = errors.New("model returned no response")
	}
	if err == nil {
		sp.s.InputTokens, sp.s.OutputTokens = resp.InputTokens, resp.OutputTokens
		sp.end(trace.StatusOK, "", inv.chatAttrs(resp))
		inv.used.addTokens(resp.InputTokens + resp.OutputTokens)
		inv.rn.addTokens(resp.InputTokens, resp.OutputTokens)
		return loop.Event{Kind: loop.EvModel, Resp: resp}
	}
	if ctx.Err() != nil {
		o := failed(ctx, err)
		if !HandedOver(ctx) { // else the next attempt ends the span
			sp.end(o.Status, o.Error, nil)
		}
		return loop.Event{Kind: loop.EvModelFailed, Outcome: o}
	}
	wait, transient := model.IsTransient(err)
	if !transient || !retry {
		attrs := panicAttrs(err)
		sp.end(trace.StatusError, err.Error(), attrs)
		if attrs == nil { // a panic's error names the model already
			err = fmt.Errorf("model %s: %w", inv.model.spec, err)
		}
		return loop.Event{Kind: loop.EvModelFailed, Outcome: failed(ctx, err)}
	}
	if wait <= 0 {
		wait = inv.agent.Retry.Delay(inv.rn.rt.cfg.RetryBackoff, maxRetryBackoff, n)
	}
	// The retry event tells the timeline why nothing happens for a while:
	// its attempt is the retry_attempt of the chat span to come.
	sp.event(semconv.EventRetry, map[string]any{
		semconv.EventAttrAttempt: n + 1, semconv.EventAttrWaitMS: wait.Milliseconds(), semconv.EventAttrError: err.Error(),
	})
	sp.end(trace.StatusError, err.Error(), nil)
	return loop.Event{Kind: loop.EvModelFailed, Transient: true, Wait: wait}
}

// chat is a model call outside the loop (a summary for a sub-agent), with
// the retries of the agent's policy, each attempt its own chat span.
func (inv *invocation) chat(ctx context.Context, parent string, req *model.Request, msgs []model.Message, purpose string) (*model.Response, error) {
	attempts := inv.agent.Retry.MaxAttempts
	if attempts <= 0 {
		attempts = registry.DefaultMaxAttempts
	}
	for n := 0; ; n++ {
		if why := inv.rn.budgetSpent(); why != "" { // no model call starts once the budget is spent
			return nil, fmt.Errorf("%w: %s", loop.ErrBudget, why)
		}
		ev := inv.attempt(ctx, parent, req, msgs, purpose, n, n+1 < attempts)
		switch {
		case ev.Kind == loop.EvModel:
			return ev.Resp, nil
		case !ev.Transient:
			return nil, errors.New(ev.Outcome.Error)
		}
		if err := inv.rn.rt.cfg.Sleep(ctx, ev.Wait); err != nil {
			return nil, err
		}
	}
}

// generate calls the model, turning a panic in the provider into an error
// for this call alone.
func generate(ctx context.Context, m resolved, req *model.Request) (resp *model.Response, err error) {
	defer func() {
		if v := recover(); v != nil {
			resp, err = nil, recovered("model "+m.spec, v)
		}
	}()
	return m.llm.Generate(ctx, req)
}
