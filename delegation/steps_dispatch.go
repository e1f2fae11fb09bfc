package delegation

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/agentry/agentry/delegation/hooks"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// An orchestrator on an engine that runs Steps (docs/temporal.md): the
// engine keeps the background agents (which run, which ended, which the
// model has had) and waits for them; these steps run the in-process
// checks, hooks and spans around them.

// Job is a background agent a turn started: a dispatch (its span open, its
// ad-hoc agent started by StartDispatched) or a delegate call with
// background: true (run by the engine as any delegation).
type Job struct {
	ID, Agent  string
	Index      int // of the call in its turn
	Call       model.ToolCall
	Background bool
	Stream     bool       // a parallel_streaming call: its result goes to the model as it lands
	Span       trace.Span // a dispatch's execute_tool span
	DependsOn  []string
	Tools      []string
}

// DispatchTurn is a turn's calls as Steps.Dispatch left them.
type DispatchTurn struct {
	Async    []bool   // per call: handled here, not run as a tool or batch call
	Results  []string // per async call: what the model reads ("" for get_agent_results, answered by the engine)
	Jobs     []Job    // the background agents to start, at most Schedule.TurnAgents at once
	Streamed bool     // the turn's delegate calls stream (StreamsTurn)
}

// MayDispatch reports whether a call may be one Steps.Dispatch handles, so
// an engine asks only on turns that have one.
func MayDispatch(f Frame, c model.ToolCall) bool {
	switch c.Name {
	case GetSkillTool, DispatchAgentTool, GetAgentResultsTool:
		return true
	case DelegateTool:
		var a struct {
			Background bool `json:"background"`
		}
		return json.Unmarshal(c.Args, &a) == nil && a.Background
	}
	return f.Schedule.Hidden
}

// Dispatch runs a turn's get_skill calls, refuses an orchestrator's own
// tool calls, and checks its dispatches and background delegations as the
// in-process turn does, opening the spans of the dispatches that start.
func (s *Steps) Dispatch(ctx context.Context, key Key, f Frame, calls []model.ToolCall) (DispatchTurn, error) {
	inv, err := s.rebuild(key, f)
	if err != nil {
		return DispatchTurn{}, err
	}
	inv.streamTurn = inv.streamingTurn(calls)
	inv.rn.seq.Store(int64(len(f.Jobs)))
	known := slices.Clone(f.Jobs)
	taken := func(id string) bool { return slices.Contains(known, id) }
	t := DispatchTurn{Async: make([]bool, len(calls)), Results: make([]string, len(calls))}
	var async []int
	for i, c := range calls {
		if inv.async(c) {
			t.Async[i] = true
			async = append(async, i)
		}
	}
	dispatches, background := inv.sortAsync(calls, async, t.Results)
	for _, d := range inv.planDispatches(calls, dispatches, taken) {
		if d.err != nil {
			t.Results[d.idx] = inv.refuseDispatch(d)
			continue
		}
		sp := inv.openDispatch(d)
		known = append(known, d.args.AgentID)
		t.Results[d.idx] = d.running()
		t.Jobs = append(t.Jobs, Job{ID: d.args.AgentID, Agent: d.args.AgentID, Index: d.idx, Call: d.call, Span: sp.s,
			DependsOn: d.deps, Tools: d.tools})
	}
	for _, i := range background {
		d, id := inv.backgroundCall(calls[i], taken)
		if d.argErr == nil {
			known = append(known, id)
			t.Results[i] = backgroundRunning(d.args.Agent, id, inv.streamTurn)
			t.Jobs = append(t.Jobs, Job{ID: id, Agent: d.args.Agent, Index: i, Call: calls[i], Background: true, Stream: inv.streamTurn})
			continue
		}
		t.Results[i], _ = inv.refuseBackground(d)
	}
	t.Streamed = inv.streamTurn
	return t, nil
}

// dispatchOf reads a started dispatch back from its Job.
func dispatchOf(j Job) *dispatch {
	d := &dispatch{call: j.Call, tools: j.Tools, deps: j.DependsOn}
	_ = json.Unmarshal(j.Call.Args, &d.args) // checked when it was planned
	return d
}

func (inv *invocation) dispatchEvent(d *dispatch) hooks.Event {
	return hooks.Event{Agent: inv.agent.Name, Depth: inv.depth, AgentType: d.args.AgentID, ToolName: DispatchAgentTool,
		ToolUseID: d.call.ID, Task: d.args.Mission}
}

// StartDispatched starts a dispatch whose dependencies (deps, in its
// depends_on order) ended ok: the subagent_start hook, then its ad-hoc
// agent's invocation, whose Frame carries the agent and its
// max_tool_calls. A blocked hook returns the outcome instead.
func (s *Steps) StartDispatched(ctx context.Context, key Key, f Frame, j Job, deps []Dependency) (*Frame, *Outcome, error) {
	inv, err := s.rebuild(key, f)
	if err != nil {
		return nil, nil, err
	}
	d := dispatchOf(j)
	sp := &span{rn: inv.rn, s: j.Span}
	if block, why := inv.rn.hook(ctx, sp, hooks.SubagentStart, inv.dispatchEvent(d)); block {
		return nil, &Outcome{Status: trace.StatusDenied, Error: blocked(hooks.SubagentStart, why)}, nil
	}
	agent := inv.adhoc(d, deps)
	passed := map[string]any{"mission": d.args.Mission, "skills": d.tools}
	if d.args.Context != "" {
		passed["context"] = d.args.Context
	}
	ch := inv.rn.newInvocation(&child{agent: agent, parent: inv, model: inv.model, task: d.args.Mission, mode: registry.ContextTaskOnly,
		passed: passed, parentID: sp.s.ID})
	cf := frame(ch, f.RunID, f.RunModel, append(slices.Clone(f.Branch), agent.Name))
	cf.Adhoc, cf.Inline, cf.MaxToolCalls, cf.TurnCalls = &agent, f.Inline, inv.maxCalls(d), inv.limits().TurnToolCalls
	return &cf, nil, nil
}

// EndDispatched ends a dispatch: after the subagent_stop hook when its
// agent ran, its span ends with the agent's report. It returns the outcome
// the dispatcher is told.
func (s *Steps) EndDispatched(ctx context.Context, key Key, f Frame, j Job, o Outcome, ran bool, calls int, took time.Duration) (Outcome, error) {
	inv, err := s.rebuild(key, f)
	if err != nil {
		return o, err
	}
	d := dispatchOf(j)
	sp := &span{rn: inv.rn, s: j.Span}
	if ran {
		ev := inv.dispatchEvent(d)
		ev.Status, ev.Result, ev.Error = string(o.Status), &o.Result, o.Error
		if block, why := inv.rn.hook(ctx, sp, hooks.SubagentStop, ev); block {
			o = Outcome{Status: trace.StatusDenied, Error: blocked(hooks.SubagentStop, why)}
		}
	}
	inv.endDispatch(sp, j.ID, outcome{status: o.Status, result: o.Result, err: o.Error}, calls, took)
	return o, nil
}

// Collect records one get_agent_results call of f, which the engine
// answered with reps after waiting since then, and returns what the model
// reads.
func (s *Steps) Collect(ctx context.Context, key Key, f Frame, c model.ToolCall, since time.Time, reps []AgentReport) (string, error) {
	inv, err := s.rebuild(key, f)
	if err != nil {
		return "", err
	}
	sp := inv.rn.startSpan(trace.KindExecuteTool, "execute_tool "+GetAgentResultsTool, inv.span.s.ID, inv.agent.Name, inv.depth,
		map[string]any{semconv.AttrToolName: GetAgentResultsTool, semconv.AttrToolArguments: string(c.Args)})
	sp.s.StartedAt = since
	if _, ok := AgentIDs(c); !ok {
		out := "error: arguments must be {agent_ids?: [string]}"
		sp.end(trace.StatusError, out, map[string]any{semconv.AttrToolResult: out})
		return out, nil
	}
	if reps == nil {
		reps = []AgentReport{}
	}
	b, _ := json.Marshal(struct {
		Agents []AgentReport `json:"agents"`
	}{reps})
	sp.end(trace.StatusOK, "", map[string]any{semconv.AttrToolResult: string(b)})
	return string(b), nil
}

// AgentIDs reads a get_agent_results call's agent_ids (none: every agent
// whose result the model has not had); false when the arguments are bad.
func AgentIDs(c model.ToolCall) ([]string, bool) {
	var args struct {
		AgentIDs []string `json:"agent_ids"`
	}
	if len(c.Args) > 0 && json.Unmarshal(c.Args, &args) != nil {
		return nil, false
	}
	return args.AgentIDs, true
}
