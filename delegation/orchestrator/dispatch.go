package orchestrator

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/sched"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// DefaultDispatchToolCalls is max_tool_calls of a dispatched agent when the
// dispatch and the limits config say nothing (seed 001 §6.2).
const DefaultDispatchToolCalls = 5

// AttrSkills lists the tools a dispatched agent was given, on its
// dispatch_agent span.
const AttrSkills = "skills"

// prompt is a dispatched agent's system prompt (seed 001 §3.2); the
// context and the results of its dependencies follow it.
const prompt = `You are a focused execution agent. Your mission is the user message.
Execute it using the tools you have, then return a clear summary of what you accomplished.

Rules:
- Only use the tools you are given
- Be concise in your final response: the orchestrator will synthesize for the user
- If a tool fails, report the error clearly; do not retry indefinitely
- If you cannot complete your mission, explain what blocked you`

// DispatchSpec is the dispatch_agent tool as a dispatcher is offered it.
func DispatchSpec() model.Tool {
	return model.Tool{
		Name: loop.DispatchAgentTool,
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

// Args are one dispatch_agent call's arguments.
type Args struct {
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

// Dispatch is one dispatch_agent call as its turn plans it.
type Dispatch struct {
	Index  int // the call's place in its turn
	Call   model.ToolCall
	Args   Args
	Tools  []string // the tools its agent gets, sorted
	Err    error    // why it is refused (nil: it starts)
	Status trace.Status
}

// Read reads a started dispatch back from its call and the tools it was
// given (an engine that carries it between steps).
func Read(c model.ToolCall, tools []string) *Dispatch {
	d := &Dispatch{Call: c, Tools: tools}
	_ = json.Unmarshal(c.Args, &d.Args) // checked when it was planned
	return d
}

// Plan checks a turn's dispatches together (calls at idxs): arguments,
// skills (what skills gives), agent_ids already taken (known) or used
// twice, dependencies on no agent and cycles, so depends_on may name a
// dispatch of the same turn. Each comes back with Err and Status set when
// it is refused.
func Plan(calls []model.ToolCall, idxs []int, skills Skills, known func(string) bool) []*Dispatch {
	ds := make([]*Dispatch, len(idxs))
	turn := map[string]*Dispatch{}
	for k, i := range idxs {
		d := &Dispatch{Index: i, Call: calls[i]}
		ds[k] = d
		d.check(skills)
		if d.Err == nil {
			if turn[d.Args.AgentID] != nil || known(d.Args.AgentID) {
				d.Err, d.Status = fmt.Errorf("agent_id %q is already used", d.Args.AgentID), trace.StatusError
				continue
			}
			turn[d.Args.AgentID] = d
		}
	}
	refuseDeps(ds, turn, known)
	return ds
}

// check validates a call's arguments and skills.
func (d *Dispatch) check(skills Skills) {
	d.Status = trace.StatusError
	a := &d.Args
	switch err := json.Unmarshal(d.Call.Args, a); {
	case err != nil:
		d.Err = fmt.Errorf("arguments are not a valid dispatch_agent call: %v", err)
	case !registry.ValidName(a.AgentID):
		d.Err = fmt.Errorf("agent_id %q must match %s", a.AgentID, registry.IDPattern)
	case strings.TrimSpace(a.Mission) == "":
		d.Err = fmt.Errorf("mission is required")
	case len(a.Skills) == 0:
		d.Err = fmt.Errorf("skills is required: name the tools or domains the agent may use")
	case a.MaxToolCalls < 0:
		d.Err = fmt.Errorf("max_tool_calls must not be negative")
	case a.Timeout < 0:
		d.Err = fmt.Errorf("timeout must not be negative")
	}
	if d.Err != nil {
		return
	}
	for _, s := range a.Skills {
		tools, err := skills.Expand(s)
		if err != nil {
			d.Err, d.Status = fmt.Errorf("denied: %v", err), trace.StatusDenied
			return
		}
		for _, t := range tools {
			if !slices.Contains(d.Tools, t) {
				d.Tools = append(d.Tools, t)
			}
		}
	}
	slices.Sort(d.Tools)
}

// refuseDeps refuses the dispatches on a dependency cycle, then those
// whose depends_on names no agent or a refused one, until none is left to
// refuse.
func refuseDeps(ds []*Dispatch, turn map[string]*Dispatch, known func(string) bool) {
	for _, d := range ds {
		if d.Err != nil {
			continue
		}
		if slices.Contains(d.Args.DependsOn, d.Args.AgentID) {
			d.Err, d.Status = fmt.Errorf("dependency cycle refused: %s depends on itself", d.Args.AgentID), trace.StatusError
		} else if cyc := cycle(d, turn); cyc != "" {
			d.Err, d.Status = fmt.Errorf("dependency cycle refused: %s", cyc), trace.StatusError
		}
	}
	for _, d := range ds {
		if d.Err != nil && turn[d.Args.AgentID] == d {
			delete(turn, d.Args.AgentID)
		}
	}
	for changed := true; changed; {
		changed = false
		for _, d := range ds {
			if d.Err != nil {
				continue
			}
			for _, id := range d.Args.DependsOn {
				if turn[id] == nil && !known(id) {
					d.Err, d.Status = fmt.Errorf("depends_on names %q, which is no dispatched agent", id), trace.StatusError
					delete(turn, d.Args.AgentID)
					changed = true
					break
				}
			}
		}
	}
}

// cycle returns "a → b → a" when d lies on a cycle of this turn's
// dispatches (earlier agents cannot depend on later ones), else "".
func cycle(d *Dispatch, turn map[string]*Dispatch) string {
	dependsOn := func(id string) []string {
		if n, ok := turn[id]; ok {
			return n.Args.DependsOn
		}
		return nil
	}
	return sched.Cycle(d.Args.AgentID, dependsOn, func(id string) string { return id })
}

// Refused is what the dispatcher reads of a refused dispatch.
func (d *Dispatch) Refused() string {
	b, _ := json.Marshal(loop.Report{AgentID: d.Args.AgentID, Status: string(d.Status), Error: d.Err.Error()})
	return string(b)
}

// Running is what the dispatcher reads at once of a started dispatch.
func (d *Dispatch) Running() string {
	state := loop.ReportRunning
	if len(d.Args.DependsOn) > 0 {
		state = "waiting for " + strings.Join(d.Args.DependsOn, ", ")
	}
	b, _ := json.Marshal(map[string]any{"agent_id": d.Args.AgentID, "status": state, "skills": d.Tools})
	return string(b)
}

// Agent is the ad-hoc agent d runs for its dispatcher, under limits l,
// with the results of its dependencies deps in its prompt. It is in no
// agents folder, so an engine that persists between steps carries it.
func (d *Dispatch) Agent(dispatcher registry.Agent, l Limits, deps []loop.Dependency) registry.Agent {
	timeout := time.Duration(d.Args.Timeout)
	if timeout <= 0 {
		timeout = l.DispatchTimeout // seed 001's 30 s by default
	}
	return registry.Agent{Name: d.Args.AgentID, Description: "dispatched by " + dispatcher.Name, Model: "inherit",
		Tools: permissions.Rules{Allow: d.Tools}, Subagents: registry.Subagents{Rules: permissions.Rules{Allow: []string{}}},
		MaxTurns: dispatcher.MaxTurns, Retry: dispatcher.Retry, Enabled: true, Sampling: dispatcher.Sampling,
		Timeout: timeout, Prompt: prompt + promptContext(d.Args.Context, deps)}
}

// MaxToolCalls is a dispatched agent's max_tool_calls under limits l.
func (d *Dispatch) MaxToolCalls(l Limits) int {
	if d.Args.MaxToolCalls > 0 {
		return d.Args.MaxToolCalls
	}
	if l.DispatchToolCalls > 0 {
		return l.DispatchToolCalls
	}
	return DefaultDispatchToolCalls
}

// AgentsFull is why an agent did not start under max_agents_per_run n.
func AgentsFull(n int) string { return fmt.Sprintf("max agents per run (%d) reached", n) }

// promptContext is the part of a dispatched agent's prompt after the
// rules: the dispatcher's context and its dependencies' results.
func promptContext(ctxText string, deps []loop.Dependency) string {
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
