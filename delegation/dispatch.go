package delegation

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/hooks"
	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/orchestrator"
	"github.com/agentry/agentry/delegation/sched"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// reservedTools are names the runtime's own tools take.
var reservedTools = []string{loop.DelegateTool, loop.GetSkillTool, loop.DispatchAgentTool, loop.GetAgentResultsTool}

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
		inv.specs = append(inv.specs, orchestrator.GetSkillSpec(), orchestrator.DispatchSpec(), orchestrator.GetAgentResultsSpec())
	case inv.offer != nil && inv.offer.any:
		inv.specs = append(inv.specs, orchestrator.GetAgentResultsSpec())
	}
}

// startAsync runs a turn's async calls (loop.ActAsync): it answers
// get_skill, refuses an orchestrator's own tool calls, checks the
// dispatches together (so depends_on may name a dispatch of the same turn
// and a cycle among them is refused) and the background delegations, and
// returns what the model reads of each call (by call index) and the
// background agents to start, with what the driver holds of each. known
// are the ids this invocation's agents have taken.
func (inv *invocation) startAsync(calls []model.ToolCall, idxs []int, stream bool, known []string) ([]string, []loop.Job, []jobRef) {
	results := make([]string, len(calls))
	taken := func(id string) bool { return slices.Contains(known, id) }
	n := len(known) // background agents without an id are named AGENT-N
	var dispatches, background []int
	for _, i := range idxs {
		switch c := calls[i]; c.Name {
		case loop.GetSkillTool:
			results[i] = inv.getSkill(c)
		case loop.DispatchAgentTool:
			dispatches = append(dispatches, i)
		case loop.DelegateTool:
			background = append(background, i)
		default:
			results[i] = inv.refuseOwnTool(c)
		}
	}
	var jobs []loop.Job
	var refs []jobRef
	for _, d := range orchestrator.Plan(calls, dispatches, inv.skills(), taken) {
		if d.Err != nil {
			results[d.Index] = inv.refuseDispatch(d)
			continue
		}
		sp := inv.openDispatch(d)
		known = append(known, d.Args.AgentID)
		results[d.Index] = d.Running()
		jobs = append(jobs, loop.Job{ID: d.Args.AgentID, Agent: d.Args.AgentID, Index: d.Index, Call: d.Call, Span: sp.s,
			DependsOn: d.Args.DependsOn, Tools: d.Tools})
		refs = append(refs, jobRef{ds: d, sp: sp})
	}
	for _, i := range background {
		n++
		d, id := inv.backgroundCall(calls[i], taken, n)
		if d.argErr != "" {
			inv.refuse(d, trace.StatusError, loop.RefusedArguments, d.argErr, nil)
			results[i] = d.res.text()
			continue
		}
		known = append(known, id)
		results[i] = backgroundRunning(d.args.Agent, id, stream)
		jobs = append(jobs, loop.Job{ID: id, Agent: d.args.Agent, Index: i, Call: calls[i], Background: true, Stream: stream, Span: d.sp.s})
		refs = append(refs, jobRef{d: d})
	}
	return results, jobs, refs
}

// refuseOwnTool answers an orchestrator that calls one of its tools itself.
func (inv *invocation) refuseOwnTool(c model.ToolCall) string {
	sp := inv.rn.startSpan(trace.KindExecuteTool, "execute_tool "+c.Name, inv.span.s.ID, inv.agent.Name, inv.depth,
		map[string]any{semconv.AttrToolName: c.Name, semconv.AttrToolArguments: string(c.Args)})
	out := fmt.Sprintf("error: %s is an orchestrator and does not call %s itself: dispatch_agent an agent with that skill", inv.agent.Name, c.Name)
	sp.end(trace.StatusDenied, out, map[string]any{semconv.AttrToolResult: out})
	return out
}

// refuseDispatch records a refused dispatch and returns its result.
func (inv *invocation) refuseDispatch(d *orchestrator.Dispatch) string {
	sp := inv.rn.startSpan(trace.KindExecuteTool, "execute_tool "+loop.DispatchAgentTool, inv.span.s.ID, inv.agent.Name, inv.depth,
		map[string]any{semconv.AttrToolName: loop.DispatchAgentTool, semconv.AttrToolArguments: string(d.Call.Args), semconv.AttrTargetAgent: d.Args.AgentID})
	out := d.Refused()
	sp.end(d.Status, d.Err.Error(), map[string]any{semconv.AttrToolResult: out, semconv.AttrDelegationStatus: string(d.Status)})
	return out
}

// openDispatch opens a valid dispatch's execute_tool span.
func (inv *invocation) openDispatch(d *orchestrator.Dispatch) *span {
	attrs := map[string]any{semconv.AttrToolName: loop.DispatchAgentTool, semconv.AttrToolArguments: string(d.Call.Args),
		semconv.AttrTargetAgent: d.Args.AgentID, orchestrator.AttrSkills: d.Tools}
	return inv.rn.startSpan(trace.KindExecuteTool, "execute_tool "+loop.DispatchAgentTool, inv.span.s.ID, inv.agent.Name, inv.depth, attrs)
}

// endDispatch ends a dispatch's span with its agent's report and the
// skills it loaded.
func (inv *invocation) endDispatch(sp *span, id string, o loop.Outcome, calls int, skills []string, took time.Duration) {
	b, _ := json.Marshal(loop.Report{AgentID: id, Status: loop.ReportStatus(o.Status), Result: o.Result, ToolCallsUsed: calls,
		DurationMS: took.Milliseconds(), Error: o.Error})
	sp.end(o.Status, o.Error, withSkills(map[string]any{semconv.AttrToolResult: string(b), semconv.AttrDelegationStatus: string(o.Status)}, skills))
}

// dispatchStep carries out a loop action on a dispatched agent: reserve
// its agent under max_agents_per_run (ActCheck), take a run-wide slot,
// run it (hooks see a dispatch as a delegation, its agent_id as the agent
// type), or end it unstarted. Its dispatch_agent span ends with its
// report, however it ends.
func (inv *invocation) dispatchStep(w *work) loop.Event {
	a, d, sp := &w.a, w.job.ds, w.job.sp
	o, calls := a.Outcome, 0
	var skills []string
	switch a.Kind {
	case loop.ActCheck:
		if inv.rn.countAgent() {
			return loop.Event{Kind: loop.EvChecked, Item: a.Item}
		}
		o = loop.Outcome{Status: trace.StatusError, Error: orchestrator.AgentsFull(inv.rn.rt.cfg.MaxAgentsPerRun)}
	case loop.ActSlot:
		err := inv.rn.global.Acquire(w.ctx)
		if err == nil {
			return loop.Event{Kind: loop.EvSlot, Item: a.Item}
		}
		o = failed(w.ctx, err)
	case loop.ActRun:
		o, calls, skills = inv.runDispatched(w.ctx, d, w.it.Deps, sp, w.turn)
	}
	inv.endDispatch(sp, d.Args.AgentID, o, calls, skills, inv.rn.rt.cfg.Now().Sub(w.it.Started))
	return loop.Event{Kind: loop.EvDone, Item: a.Item, Outcome: o, Calls: calls}
}

// runDispatched runs the ad-hoc agent of d, which holds a run-wide slot,
// with the results of its dependencies deps in its prompt, and returns
// how it ended, its tool calls and the skills it loaded.
func (inv *invocation) runDispatched(ctx context.Context, d *orchestrator.Dispatch, deps []loop.Dependency, sp *span, turn *sched.TurnCalls) (o loop.Outcome, calls int, skills []string) {
	defer func() {
		if v := recover(); v != nil {
			o = loop.Outcome{Status: trace.StatusError, Error: recovered("background agent "+d.Args.AgentID, v).Error()}
		}
	}()
	a := d.Args
	agent := d.Agent(inv.agent, inv.limits(), deps)
	passed := map[string]any{"mission": a.Mission, "skills": d.Tools}
	if a.Context != "" {
		passed["context"] = a.Context
	}
	ev := inv.dispatchEvent(d)
	if block, why := inv.rn.hook(ctx, sp, hooks.SubagentStart, ev); block {
		inv.rn.global.Release()
		return loop.Outcome{Status: trace.StatusDenied, Error: control.Blocked(hooks.SubagentStart, why)}, 0, nil
	}
	ch := inv.rn.newInvocation(&child{agent: agent, parent: inv, model: inv.model, task: a.Mission, mode: registry.ContextTaskOnly,
		passed: passed, parentID: sp.s.ID})
	ch.slot = true
	ch.turnOf = turn
	ch.maxToolCalls = d.MaxToolCalls(inv.limits())
	o = ch.run(ctx)
	ev.Status, ev.Result, ev.Error = string(o.Status), &o.Result, o.Error
	if block, why := inv.rn.hook(ctx, sp, hooks.SubagentStop, ev); block {
		o = loop.Outcome{Status: trace.StatusDenied, Error: control.Blocked(hooks.SubagentStop, why)}
	}
	return o, ch.toolCalls, ch.loadedSkills()
}

func (inv *invocation) dispatchEvent(d *orchestrator.Dispatch) hooks.Event {
	return hooks.Event{Agent: inv.agent.Name, Depth: inv.depth, AgentType: d.Args.AgentID, ToolName: loop.DispatchAgentTool,
		ToolUseID: d.Call.ID, Task: d.Args.Mission}
}
