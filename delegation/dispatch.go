package delegation

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentry/agentry/delegation/hooks"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// DispatchAgentTool starts an ad-hoc sub-agent scoped to some of the
// dispatcher's tools (seed 001's dispatch_agent).
const DispatchAgentTool = "dispatch_agent"

// DefaultDispatchToolCalls is max_tool_calls of a dispatched agent when the
// dispatch and the limits config say nothing (seed 001 §6.2).
const DefaultDispatchToolCalls = 5

// dispatchPrompt is a dispatched agent's system prompt (seed 001 §3.2);
// the context and the results of its dependencies follow it.
const dispatchPrompt = `You are a focused execution agent. Your mission is the user message.
Execute it using the tools you have, then return a clear summary of what you accomplished.

Rules:
- Only use the tools you are given
- Be concise in your final response: the orchestrator will synthesize for the user
- If a tool fails, report the error clearly; do not retry indefinitely
- If you cannot complete your mission, explain what blocked you`

// reservedTools are names the runtime's own tools take.
var reservedTools = []string{DelegateTool, GetSkillTool, DispatchAgentTool, GetAgentResultsTool}

func dispatchSpec() model.Tool {
	return model.Tool{
		Name: DispatchAgentTool,
		Description: "Dispatch a sub-agent to execute a focused task with only the skills it needs. It returns at once; " +
			"the agent runs in the background (in parallel with others unless depends_on says otherwise). " +
			"Collect results with get_agent_results before answering.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"agent_id":{"type":"string","description":"A unique id for this agent (e.g. task_search), for depends_on and get_agent_results."},` +
			`"mission":{"type":"string","description":"Clear, specific instructions: inputs, expected output, success criteria."},` +
			`"skills":{"type":"array","items":{"type":"string"},"description":"Tools or domains the agent may use (see get_skill); it sees only these."},` +
			`"context":{"type":"string","description":"Additional context the agent needs. Keep it concise."},` +
			`"depends_on":{"type":"array","items":{"type":"string"},"description":"agent_ids this agent waits for; their results are put in its context."},` +
			`"max_tool_calls":{"type":"integer","description":"Maximum tool calls for this agent (default 5)."},` +
			`"timeout":{"type":"number","description":"Seconds this agent may run; it then ends with status timeout and you go on (default 30)."}` +
			`},"required":["agent_id","mission","skills"]}`),
	}
}

// dispatcher reports whether the invocation gets the dispatch tools: its
// file asks for them and it may start sub-agents at this depth.
func (inv *invocation) dispatcher() bool {
	return (inv.agent.Subagents.Dispatch || inv.agent.Orchestrator) && inv.mayDelegate.Allowed
}

// offerDispatch adds the orchestrator's tools to what the model is offered.
// An orchestrator: true agent sees its own tools only through get_skill;
// an agent that may delegate gets get_agent_results for background calls.
func (inv *invocation) offerDispatch() {
	switch {
	case inv.dispatcher():
		if inv.agent.Orchestrator {
			inv.hidden = true
			inv.specs = slices.DeleteFunc(inv.specs, func(t model.Tool) bool { return t.Name != DelegateTool })
		}
		inv.specs = append(inv.specs, getSkillSpec(), dispatchSpec(), getAgentResultsSpec())
	case inv.offer != nil && inv.offer.any:
		inv.specs = append(inv.specs, getAgentResultsSpec())
	}
}

// async reports whether c is one of the calls execute leaves to the
// orchestration code: the dispatch tools, background delegations, and an
// orchestrator's own tools, which it may not call itself.
func (inv *invocation) async(c model.ToolCall) bool {
	switch c.Name {
	case GetSkillTool, DispatchAgentTool:
		return inv.dispatcher()
	case GetAgentResultsTool:
		return inv.dispatcher() || inv.offer != nil && inv.offer.any
	case DelegateTool:
		if inv.streamTurn {
			return true
		}
		var a struct {
			Background bool `json:"background"`
		}
		return mayHaveKey(c.Args, "background") && json.Unmarshal(c.Args, &a) == nil && a.Background
	}
	_, own := inv.tools[c.Name]
	return inv.hidden && own
}

// startAsync runs a turn's get_skill calls, refuses an orchestrator's direct
// tool calls, and starts its dispatches and background delegations, whose
// results say they are running.
func (inv *invocation) startAsync(ctx context.Context, calls []model.ToolCall, idxs []int, results []string) {
	dispatches, background := inv.sortAsync(calls, idxs, results)
	if len(dispatches) > 0 {
		inv.dispatchTurn(ctx, calls, dispatches, results)
	}
	for _, i := range background {
		results[i] = inv.delegateInBackground(ctx, calls[i], inv.streamTurn)
	}
}

// sortAsync answers a turn's get_skill calls and refuses an orchestrator's
// direct tool calls, and returns the dispatches and background delegations
// left to start (in-process, or by an engine's Dispatch step).
func (inv *invocation) sortAsync(calls []model.ToolCall, idxs []int, results []string) (dispatches, background []int) {
	for _, i := range idxs {
		switch c := calls[i]; c.Name {
		case GetSkillTool:
			results[i] = inv.getSkill(c)
		case DispatchAgentTool:
			dispatches = append(dispatches, i)
		case DelegateTool:
			background = append(background, i)
		case GetAgentResultsTool:
		default:
			results[i] = inv.refuseOwnTool(c)
		}
	}
	return dispatches, background
}

// collectAsync answers the turn's get_agent_results calls, after its other
// calls have started.
func (inv *invocation) collectAsync(ctx context.Context, calls []model.ToolCall, idxs []int, results []string) {
	for _, i := range idxs {
		if calls[i].Name == GetAgentResultsTool {
			results[i] = inv.getAgentResults(ctx, calls[i])
		}
	}
}

// refuseOwnTool answers an orchestrator that calls one of its tools itself.
func (inv *invocation) refuseOwnTool(c model.ToolCall) string {
	sp := inv.rn.startSpan(trace.KindExecuteTool, "execute_tool "+c.Name, inv.span.s.ID, inv.agent.Name, inv.depth,
		map[string]any{trace.AttrToolName: c.Name, trace.AttrToolArguments: string(c.Args)})
	out := fmt.Sprintf("error: %s is an orchestrator and does not call %s itself: dispatch_agent an agent with that skill", inv.agent.Name, c.Name)
	sp.end(trace.StatusDenied, out, map[string]any{trace.AttrToolResult: out})
	return out
}

// dispatchArgs are one dispatch_agent call's arguments.
type dispatchArgs struct {
	AgentID      string   `json:"agent_id"`
	Mission      string   `json:"mission"`
	Skills       []string `json:"skills"`
	Context      string   `json:"context"`
	DependsOn    []string `json:"depends_on"`
	MaxToolCalls int      `json:"max_tool_calls"`
	// Timeout is in seconds; a duration string ("90s") is read too.
	Timeout seconds `json:"timeout"`
}

// seconds is a dispatch's timeout: a number of seconds, or a Go duration
// string as a model may well write it.
type seconds time.Duration

func (s *seconds) UnmarshalJSON(b []byte) error {
	var n float64
	if err := json.Unmarshal(b, &n); err == nil {
		*s = seconds(n * float64(time.Second))
		return nil
	}
	var text string
	if err := json.Unmarshal(b, &text); err != nil {
		return fmt.Errorf("timeout must be a number of seconds")
	}
	d, err := time.ParseDuration(text)
	if err != nil {
		return fmt.Errorf("timeout %q is neither a number of seconds nor a duration like 90s", text)
	}
	*s = seconds(d)
	return nil
}

// dispatch is one dispatch_agent call as the turn plans it.
type dispatch struct {
	idx    int
	call   model.ToolCall
	args   dispatchArgs
	tools  []string
	err    error
	status trace.Status // of a refused call: error (bad arguments) or denied (skills)
	deps   []string
}

// dispatchTurn plans the turn's dispatches together, so depends_on may name
// a dispatch of the same turn and a cycle among them is refused, then
// starts every valid one in the background, in this turn's line
// (thisTurn). Every job of the turn is registered before the first starts,
// so a dependency on a dispatch later in the turn finds its job.
func (inv *invocation) dispatchTurn(ctx context.Context, calls []model.ToolCall, idxs []int, results []string) {
	js := inv.jobTable(ctx)
	planned := inv.planDispatches(calls, idxs, func(id string) bool { return js.get(id) != nil })
	jobs := make([]*job, len(planned))
	for k, d := range planned {
		if d.err != nil {
			results[d.idx] = inv.refuseDispatch(d)
			continue
		}
		jobs[k] = &job{id: d.args.AgentID, agent: d.args.AgentID, started: inv.rn.rt.cfg.Now()}
		js.add(jobs[k])
	}
	turn := inv.thisTurn()
	for k, d := range planned {
		if jobs[k] != nil {
			results[d.idx] = inv.startDispatch(d, jobs[k], js, turn)
		}
	}
}

// planDispatches checks a turn's dispatches (arguments, skills, agent_ids
// already taken as known says, dependencies, cycles) and returns them with
// err set on those refused. Steps.Dispatch plans with it too.
func (inv *invocation) planDispatches(calls []model.ToolCall, idxs []int, known func(string) bool) []*dispatch {
	ds := make([]*dispatch, len(idxs))
	turn := map[string]*dispatch{}
	for k, i := range idxs {
		d := &dispatch{idx: i, call: calls[i]}
		ds[k] = d
		inv.checkDispatch(d)
		if d.err == nil {
			if turn[d.args.AgentID] != nil || known(d.args.AgentID) {
				d.err, d.status = fmt.Errorf("agent_id %q is already used", d.args.AgentID), trace.StatusError
				continue
			}
			turn[d.args.AgentID] = d
		}
	}
	refuseDeps(ds, turn, known)
	return ds
}

// checkDispatch validates a call's arguments and skills.
func (inv *invocation) checkDispatch(d *dispatch) {
	d.status = trace.StatusError
	a := &d.args
	switch err := json.Unmarshal(d.call.Args, a); {
	case err != nil:
		d.err = fmt.Errorf("arguments are not a valid dispatch_agent call: %v", err)
	case !registry.ValidName(a.AgentID):
		d.err = fmt.Errorf("agent_id %q must match %s", a.AgentID, registry.IDPattern)
	case strings.TrimSpace(a.Mission) == "":
		d.err = fmt.Errorf("mission is required")
	case len(a.Skills) == 0:
		d.err = fmt.Errorf("skills is required: name the tools or domains the agent may use")
	case a.MaxToolCalls < 0:
		d.err = fmt.Errorf("max_tool_calls must not be negative")
	case a.Timeout < 0:
		d.err = fmt.Errorf("timeout must not be negative")
	}
	if d.err != nil {
		return
	}
	for _, s := range a.Skills {
		tools, err := inv.expandSkill(s)
		if err != nil {
			d.err, d.status = fmt.Errorf("denied: %v", err), trace.StatusDenied
			return
		}
		for _, t := range tools {
			if !slices.Contains(d.tools, t) {
				d.tools = append(d.tools, t)
			}
		}
	}
	slices.Sort(d.tools)
	d.deps = a.DependsOn
}

// refuseDeps refuses the dispatches on a dependency cycle, then those
// whose depends_on names no agent or a refused one, until none is left to
// refuse.
func refuseDeps(ds []*dispatch, turn map[string]*dispatch, known func(string) bool) {
	for _, d := range ds {
		if d.err != nil {
			continue
		}
		if slices.Contains(d.deps, d.args.AgentID) {
			d.err, d.status = fmt.Errorf("dependency cycle refused: %s depends on itself", d.args.AgentID), trace.StatusError
		} else if cyc := dispatchCycle(d, turn); cyc != "" {
			d.err, d.status = fmt.Errorf("dependency cycle refused: %s", cyc), trace.StatusError
		}
	}
	for _, d := range ds {
		if d.err != nil && turn[d.args.AgentID] == d {
			delete(turn, d.args.AgentID)
		}
	}
	for changed := true; changed; {
		changed = false
		for _, d := range ds {
			if d.err != nil {
				continue
			}
			for _, id := range d.deps {
				if turn[id] == nil && !known(id) {
					d.err, d.status = fmt.Errorf("depends_on names %q, which is no dispatched agent", id), trace.StatusError
					delete(turn, d.args.AgentID)
					changed = true
					break
				}
			}
		}
	}
}

// dispatchCycle returns "a → b → a" when d lies on a cycle of this turn's
// dispatches (earlier agents cannot depend on later ones), else "".
func dispatchCycle(d *dispatch, turn map[string]*dispatch) string {
	seen := map[string]bool{}
	var path []string
	var find func(id string) bool
	find = func(id string) bool {
		n, ok := turn[id]
		if !ok {
			return false
		}
		for _, dep := range n.deps {
			if dep == d.args.AgentID {
				path = append(path, id)
				return true
			}
			if !seen[dep] {
				seen[dep] = true
				if find(dep) {
					path = append(path, id)
					return true
				}
			}
		}
		return false
	}
	if !find(d.args.AgentID) {
		return ""
	}
	slices.Reverse(path)
	return strings.Join(append(path, d.args.AgentID), " → ")
}

// refuseDispatch records a refused dispatch and returns its result.
func (inv *invocation) refuseDispatch(d *dispatch) string {
	sp := inv.rn.startSpan(trace.KindExecuteTool, "execute_tool "+DispatchAgentTool, inv.span.s.ID, inv.agent.Name, inv.depth,
		map[string]any{trace.AttrToolName: DispatchAgentTool, trace.AttrToolArguments: string(d.call.Args), trace.AttrTargetAgent: d.args.AgentID})
	b, _ := json.Marshal(agentReport{AgentID: d.args.AgentID, Status: string(d.status), Error: d.err.Error()})
	sp.end(d.status, d.err.Error(), map[string]any{trace.AttrToolResult: string(b), trace.AttrDelegationStatus: string(d.status)})
	return string(b)
}

// startDispatch starts a valid dispatch, whose job j is registered, in the
// background. Its execute_tool span lasts as long as the agent, whose
// invoke_agent span hangs under it, and ends however the agent ends (a
// panic included).
func (inv *invocation) startDispatch(d *dispatch, j *job, js *jobs, turn *turnBudget) string {
	sp := inv.openDispatch(d)
	deps := make([]*job, 0, len(d.deps))
	for _, id := range d.deps {
		deps = append(deps, js.get(id))
	}
	js.start(j, inv.rn.rt.cfg.Now, func(ctx context.Context) (outcome, int) {
		return inv.runDispatched(ctx, d, deps, sp, turn)
	}, func(o outcome, n int) {
		inv.endDispatch(sp, j.id, o, n, inv.rn.rt.cfg.Now().Sub(j.started))
	})
	return d.running()
}

// openDispatch opens a valid dispatch's execute_tool span.
func (inv *invocation) openDispatch(d *dispatch) *span {
	attrs := map[string]any{trace.AttrToolName: DispatchAgentTool, trace.AttrToolArguments: string(d.call.Args),
		trace.AttrTargetAgent: d.args.AgentID, AttrSkills: d.tools}
	return inv.rn.startSpan(trace.KindExecuteTool, "execute_tool "+DispatchAgentTool, inv.span.s.ID, inv.agent.Name, inv.depth, attrs)
}

// endDispatch ends a dispatch's span with its agent's report.
func (inv *invocation) endDispatch(sp *span, id string, o outcome, calls int, took time.Duration) {
	b, _ := json.Marshal(agentReport{AgentID: id, Status: reportStatus(o.status), Result: o.result, ToolCallsUsed: calls,
		DurationMS: took.Milliseconds(), Error: o.err})
	sp.end(o.status, o.err, withSkills(map[string]any{trace.AttrToolResult: string(b), trace.AttrDelegationStatus: string(o.status)}, o))
}

// running is what the dispatcher reads at once for a started dispatch.
func (d *dispatch) running() string {
	state := "running"
	if len(d.deps) > 0 {
		state = "waiting for " + strings.Join(d.deps, ", ")
	}
	b, _ := json.Marshal(map[string]any{"agent_id": d.args.AgentID, "status": state, "skills": d.tools})
	return string(b)
}

// AttrSkills lists the tools a dispatched agent was given, on its
// dispatch_agent span.
const AttrSkills = "skills"

// runDispatched waits for d's dependencies, then runs the ad-hoc agent
// under its turn's line and the run's caps. A failed dependency skips it
// with the reason (a skipped dependency passes its own reason on, so the
// root cause shows).
func (inv *invocation) runDispatched(ctx context.Context, d *dispatch, deps []*job, sp *span, turn *turnBudget) (outcome, int) {
	done := make([]Dependency, 0, len(deps))
	for _, dep := range deps {
		select {
		case <-dep.done:
		case <-ctx.Done():
			return failed(ctx, context.Cause(ctx)), 0
		}
		done = append(done, Dependency{ID: dep.id, Outcome: Outcome{Status: dep.status, Result: dep.result, Error: dep.err}})
	}
	if o, skip := SkipDispatch(done); skip {
		return outcome{status: o.Status, err: o.Error}, 0
	}
	if !inv.rn.countAgent() {
		return outcome{status: trace.StatusError, err: AgentsFull(inv.rn.rt.cfg.MaxAgentsPerRun)}, 0
	}
	if err := turn.slots.acquire(ctx); err != nil {
		return failed(ctx, err), 0
	}
	defer turn.slots.release()
	if err := inv.children.acquire(ctx); err != nil {
		return failed(ctx, err), 0
	}
	defer inv.children.release()
	if err := inv.rn.global.acquire(ctx); err != nil {
		return failed(ctx, err), 0
	}
	a := d.args
	agent := inv.adhoc(d, done)
	passed := map[string]any{"mission": a.Mission, "skills": d.tools}
	if a.Context != "" {
		passed["context"] = a.Context
	}
	// Hooks see a dispatch as a delegation (subagent_start, subagent_stop),
	// its agent_id as the agent type.
	ev := hooks.Event{Agent: inv.agent.Name, Depth: inv.depth, AgentType: a.AgentID, ToolName: DispatchAgentTool,
		ToolUseID: d.call.ID, Task: a.Mission}
	if block, why := inv.rn.hook(ctx, sp, hooks.SubagentStart, ev); block {
		inv.rn.global.release()
		return outcome{status: trace.StatusDenied, err: blocked(hooks.SubagentStart, why)}, 0
	}
	ch := inv.rn.newInvocation(&child{agent: agent, parent: inv, model: inv.model, task: a.Mission, mode: registry.ContextTaskOnly,
		passed: passed, parentID: sp.s.ID})
	ch.slot = true
	ch.turnOf = turn
	ch.maxToolCalls = inv.maxCalls(d)
	o := ch.run(ctx)
	ev.Status, ev.Result, ev.Error = string(o.status), &o.result, o.err
	if block, why := inv.rn.hook(ctx, sp, hooks.SubagentStop, ev); block {
		o = outcome{status: trace.StatusDenied, err: blocked(hooks.SubagentStop, why)}
	}
	return o, ch.toolCalls
}

// adhoc is the agent a dispatch runs: it is in no agents folder, so an
// engine that persists between steps carries it in the Frame.
func (inv *invocation) adhoc(d *dispatch, deps []Dependency) registry.Agent {
	return registry.Agent{Name: d.args.AgentID, Description: "dispatched by " + inv.agent.Name, Model: "inherit",
		Tools: permissions.Rules{Allow: d.tools}, Subagents: registry.Subagents{Rules: permissions.Rules{Allow: []string{}}},
		MaxTurns: inv.agent.MaxTurns, Retry: inv.agent.Retry, Enabled: true, Sampling: inv.agent.Sampling,
		Timeout: inv.dispatchTimeout(d), Prompt: dispatchPrompt + dispatchContext(d.args.Context, deps)}
}

// dispatchTimeout is a dispatched agent's timeout: its dispatch's, else
// limits.dispatch_timeout (seed 001's 30 s by default).
func (inv *invocation) dispatchTimeout(d *dispatch) time.Duration {
	if d.args.Timeout > 0 {
		return time.Duration(d.args.Timeout)
	}
	return inv.limits().DispatchTimeout
}

// maxCalls is a dispatched agent's max_tool_calls.
func (inv *invocation) maxCalls(d *dispatch) int {
	if d.args.MaxToolCalls > 0 {
		return d.args.MaxToolCalls
	}
	return inv.limits().dispatchToolCalls()
}

// SkipDispatch says whether a dispatched agent is skipped for its ended
// dependencies, and with what reason: a failed dependency skips it (a
// skipped one passes its own reason on, so the root cause shows).
func SkipDispatch(deps []Dependency) (Outcome, bool) {
	for _, dep := range deps {
		switch {
		case dep.Status == trace.StatusSkipped:
			return Outcome{Status: trace.StatusSkipped, Error: dep.Error}, true
		case dep.Status != trace.StatusOK:
			return Outcome{Status: trace.StatusSkipped, Error: fmt.Sprintf("skipped because dependency %q ended %s: %s", dep.ID, reportStatus(dep.Status), dep.Error)}, true
		}
	}
	return Outcome{}, false
}

// AgentsFull is why an agent did not start under max_agents_per_run n.
func AgentsFull(n int) string { return fmt.Sprintf("max agents per run (%d) reached", n) }

// dispatchContext is the part of a dispatched agent's prompt after the
// rules: the dispatcher's context and its dependencies' results.
func dispatchContext(ctxText string, deps []Dependency) string {
	var b strings.Builder
	if ctxText != "" {
		b.WriteString("\n\nAdditional context:\n" + ctxText)
	}
	if len(deps) > 0 {
		b.WriteString("\n\nResults from prior agents:")
		for _, dep := range deps {
			fmt.Fprintf(&b, "\n\nResults from %s:\n%s", dep.ID, dep.Result)
		}
	}
	return b.String()
}

// mayHaveKey reports whether the JSON text args may hold the object key key
// (ASCII, lower case), as encoding/json matches keys: unescaped, and
// folding case, so K also matches the Kelvin sign. It answers false only when
// args is plain ASCII without a backslash and without key in any case, which
// spares decoding every delegate call for a key that is rarely there.
func mayHaveKey(args []byte, key string) bool {
	for _, c := range args {
		if c >= utf8.RuneSelf || c == '\\' {
			return true
		}
	}
	for i := 0; i+len(key) <= len(args); i++ {
		j := 0
		for ; j < len(key); j++ {
			c := args[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != key[j] {
				break
			}
		}
		if j == len(key) {
			return true
		}
	}
	return false
}
