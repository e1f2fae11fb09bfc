package delegation

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/hooks"
	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/orchestrator"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/semconv"
)

// The steps of the loop's items (loop.Item): a delegate call of a batch or
// in the background, and a dispatched agent. In-process a delegation is
// one value from its check to its end; a durable engine carries it between
// steps as a Delegation.

// Delegation is a delegate call between a durable engine's steps: its span
// and what its check decided, then (Start) the child invocation it starts.
type Delegation struct {
	// Opened is when a batch call's span opened (loop.ActOpen): it waited
	// from then on. Span is its span once a step has opened it.
	Opened   time.Time `json:",omitempty"`
	Span     trace.Span
	Target   string `json:",omitempty"`
	Model    string `json:",omitempty"`
	Mode     string `json:",omitempty"`
	Note     string `json:",omitempty"`
	Task     string `json:",omitempty"`
	Ask      *permissions.Decision
	QueuedMS int64  `json:",omitempty"`
	Child    *Frame `json:",omitempty"`
	// Loaded are the skills its child loaded, for its span: the engine
	// sets them from the child's end before Finish.
	Loaded []string `json:",omitempty"`
	// Remote is set instead of Child when the target runs elsewhere
	// (remote.go): what Steps.Remote sends it beside the task.
	Remote *RemoteCall `json:",omitempty"`
}

// RemoteCall is what a remote target is given beside the task, worked out
// when the delegation starts (the summary of context mode summary is a
// model call of its own, made once).
type RemoteCall struct {
	Context string          `json:",omitempty"`
	History []model.Message `json:",omitempty"`
	Passed  any             `json:",omitempty"`
	// Timeout is the remote agent's, for the engine to bound the call by
	// (on Temporal the Remote activity's start-to-close limit; a history
	// recorded without it replays the 10-minute default).
	Timeout time.Duration `json:",omitempty"`
}

// Async runs a turn's async calls (loop.ActAsync), as in-process: it
// answers get_skill, refuses an orchestrator's own tool calls, checks the
// dispatches and background delegations, and opens the spans of those
// that start. known are the ids the invocation's agents have taken.
func (s *Steps) Async(ctx context.Context, key Key, f Frame, calls []model.ToolCall, idxs []int, stream bool, known []string) (loop.Event, error) {
	inv, err := s.rebuild(key, f)
	if err != nil {
		return loop.Event{}, err
	}
	results, jobs, _ := inv.startAsync(calls, idxs, stream, known)
	return loop.Event{Kind: loop.EvAsync, Results: results, Jobs: jobs}, nil
}

// Check checks delegate call it (loop.ActCheck) as in-process: arguments,
// permission, target, model, the run's agent count and budget (which the
// engine sets on f). Its span starts at rec.Opened (zero: now; a
// background call's is open already). A refused call ends here: the event
// is EvDone; else EvChecked, and the Delegation to carry on.
func (s *Steps) Check(ctx context.Context, key Key, f Frame, it loop.Item, rec Delegation) (Delegation, loop.Event, error) {
	inv, err := s.rebuild(key, f)
	if err != nil {
		return Delegation{}, loop.Event{}, err
	}
	d := inv.itemDelegation(&it, nil, rec.Opened)
	if !inv.prepare(d) {
		return Delegation{Span: d.sp.s}, loop.Event{Kind: loop.EvDone, Text: d.out, Outcome: d.outcome()}, nil
	}
	return record(d), loop.Event{Kind: loop.EvChecked}, nil
}

// record is d as a durable engine carries it.
func record(d *delegation) Delegation {
	return Delegation{Span: d.sp.s, Target: d.target.Name, Model: d.model.spec, Mode: d.mode, Note: d.note, Task: d.task, Ask: d.ask,
		QueuedMS: d.queuedMS}
}

// itemDelegation is the delegation of item it: from rec when a step has
// opened its span, else from the item (its span opened at opened).
func (inv *invocation) itemDelegation(it *loop.Item, rec *Delegation, opened time.Time) *delegation {
	dl := newDelegation(it)
	d := &dl
	if d.conv == nil {
		d.conv = inv.conv
	}
	switch {
	case rec != nil && rec.Span.ID != "":
		d.sp, d.started = &span{rn: inv.rn, s: rec.Span}, rec.Span.StartedAt
		d.mode, d.note, d.task, d.ask, d.queuedMS = rec.Mode, rec.Note, rec.Task, rec.Ask, rec.QueuedMS
		if t, ok := inv.rn.agents.Agent(rec.Target); ok {
			d.target = t
		} else if ra, ok := inv.rn.rt.remote(rec.Target); ok {
			d.target, d.remote = ra.agent(), ra
		} else if rec.Target != "" {
			d.target = inv.generalPurpose()
		}
		if llm, err := inv.rn.models.get(rec.Model); err == nil {
			d.model = resolved{llm: llm, spec: rec.Model}
		}
	case it.Job.Span.ID != "": // a background call's, opened by Async
		d.sp, d.started = &span{rn: inv.rn, s: it.Job.Span}, it.Job.Span.StartedAt
	default:
		inv.begin(d)
		if !opened.IsZero() {
			d.sp.s.StartedAt, d.started = opened, opened
			inv.rn.sink.RecordSpan(d.sp.s)
		}
	}
	return d
}

// Start starts a checked delegation that holds its places (loop.ActRun):
// the approval its target needs (durable: the request is recorded and
// returned, for the engine to wait for and call Start again with the
// answer, ans), the summary its context mode asks for, the subagent_start
// hook, and its child's invocation. A delegation that may not start ends
// here, with the event (EvDone) that says so; else rec comes back with
// Child set.
func (s *Steps) Start(ctx context.Context, key Key, f Frame, it loop.Item, rec Delegation, ans *approval.Approval) (Delegation, *loop.Event, *control.Asked, error) {
	inv, err := s.rebuild(key, f)
	if err != nil {
		return rec, nil, nil, err
	}
	d := inv.itemDelegation(&it, &rec, time.Time{})
	ctx = withAnswer(ctx, ans)
	if d.ask != nil {
		if asked, err := s.askDelegation(ctx, key, f, inv, d); asked != nil || err != nil {
			return rec, nil, asked, err
		}
	}
	var c child
	if !inv.childOf(ctx, d, &c) || inv.rn.rt.cfg.Hooks != nil && inv.subagentStart(ctx, d) {
		return rec, &loop.Event{Kind: loop.EvDone, Text: d.out, Outcome: d.outcome()}, nil, nil
	}
	if d.remote != nil { // Steps.Remote carries it there, as an activity of its own
		rec.Span, rec.Remote = d.sp.s, &RemoteCall{Context: remoteContext(&c), History: c.history, Passed: c.passed, Timeout: d.remote.Timeout}
		return rec, nil, nil, nil
	}
	ch := inv.rn.newInvocation(&c)
	cf := frame(ch, f.RunID, f.RunModel, append(slices.Clone(f.Branch), d.target.Name), branchSkills(&f, inv))
	cf.Inline, cf.Budget, cf.Caps = f.Inline, f.Budget, f.Caps
	rec.Span, rec.Child = d.sp.s, &cf
	return rec, nil, nil, nil
}

// Remote carries a started delegation to its remote target and back
// (rec.Remote, after Start) and returns how it ended, for Finish: the
// remote's invoke_agent span, as in-process. ctx is the call's: when it
// is cancelled the remote task is cancelled. at is the engine's attempt:
// a retry names the task the lost attempt started (RemoteAttempt), and
// ErrHandedOver says this attempt left its task to the next one.
func (s *Steps) Remote(ctx context.Context, key Key, f Frame, it loop.Item, rec Delegation, at RemoteAttempt) (loop.Outcome, error) {
	inv, err := s.rebuild(key, f)
	if err != nil {
		return loop.Outcome{}, err
	}
	d := inv.itemDelegation(&it, &rec, time.Time{})
	if d.remote == nil || rec.Remote == nil {
		return loop.Outcome{}, fmt.Errorf("delegation to %q: not a remote agent here", rec.Target)
	}
	c := child{agent: d.target, parent: inv, task: d.task, mode: d.mode, passed: rec.Remote.Passed, history: rec.Remote.History, parentID: d.sp.s.ID}
	return inv.runRemote(ctx, d, &c, rec.Remote.Context, at)
}

// Finish ends a delegation: refused by the loop (loop.ActRefuse, refused
// naming the kind), ended unstarted (loop.ActFinish) or, after the
// subagent_stop hook, with its child's end after Start (ran). Its span
// ends with o, and the event says what the parent's model reads.
func (s *Steps) Finish(ctx context.Context, key Key, f Frame, it loop.Item, rec Delegation, o loop.Outcome, ran bool, refused string) (loop.Event, error) {
	inv, err := s.rebuild(key, f)
	if err != nil {
		return loop.Event{}, err
	}
	d := inv.itemDelegation(&it, &rec, rec.Opened)
	switch {
	case refused != "":
		inv.refuse(d, o.Status, refused, o.Error, nil)
	case !ran:
		inv.finish(d, o.Status, "", o.Error, nil)
	default:
		if inv.rn.rt.cfg.Hooks != nil {
			o = inv.subagentStop(ctx, d, o)
		}
		inv.finish(d, o.Status, o.Result, o.Error, withSkills(map[string]any{semconv.AttrQueuedMS: d.queuedMS}, rec.Loaded))
	}
	return loop.Event{Kind: loop.EvDone, Text: d.out, Outcome: d.outcome()}, nil
}

// StartDispatched starts a dispatched agent whose dependencies ended ok
// and that holds its places (loop.ActRun): the subagent_start hook, then
// its ad-hoc agent's invocation, whose Frame carries the agent. A blocked
// hook returns the outcome instead.
func (s *Steps) StartDispatched(ctx context.Context, key Key, f Frame, it loop.Item) (*Frame, *loop.Outcome, error) {
	inv, err := s.rebuild(key, f)
	if err != nil {
		return nil, nil, err
	}
	d := orchestrator.Read(it.Job.Call, it.Job.Tools)
	sp := &span{rn: inv.rn, s: it.Job.Span}
	if block, why := inv.rn.hook(ctx, sp, hooks.SubagentStart, inv.dispatchEvent(d)); block {
		return nil, &loop.Outcome{Status: trace.StatusDenied, Error: control.Blocked(hooks.SubagentStart, why)}, nil
	}
	agent := d.Agent(inv.agent, inv.limits(), it.Deps)
	passed := map[string]any{"mission": d.Args.Mission, "skills": d.Tools}
	if d.Args.Context != "" {
		passed["context"] = d.Args.Context
	}
	ch := inv.rn.newInvocation(&child{agent: agent, parent: inv, model: inv.model, task: d.Args.Mission, mode: registry.ContextTaskOnly,
		passed: passed, parentID: sp.s.ID})
	ch.maxToolCalls = d.MaxToolCalls(inv.limits())
	cf := frame(ch, f.RunID, f.RunModel, append(slices.Clone(f.Branch), agent.Name), branchSkills(&f, inv))
	cf.Adhoc, cf.Inline, cf.Budget, cf.Caps = &agent, f.Inline, f.Budget, f.Caps
	cf.TurnCalls, cf.Turn = inv.limits().TurnToolCalls, it.Turn
	return &cf, nil, nil
}

// EndDispatched ends a dispatch: after the subagent_stop hook when its
// agent ran, its span ends with the agent's report and the skills it
// loaded. It returns the outcome the dispatcher is told.
func (s *Steps) EndDispatched(ctx context.Context, key Key, f Frame, it loop.Item, o loop.Outcome, ran bool, calls int, took time.Duration, skills []string) (loop.Outcome, error) {
	inv, err := s.rebuild(key, f)
	if err != nil {
		return o, err
	}
	d := orchestrator.Read(it.Job.Call, it.Job.Tools)
	sp := &span{rn: inv.rn, s: it.Job.Span}
	if ran {
		ev := inv.dispatchEvent(d)
		ev.Status, ev.Result, ev.Error = string(o.Status), &o.Result, o.Error
		if block, why := inv.rn.hook(ctx, sp, hooks.SubagentStop, ev); block {
			o = loop.Outcome{Status: trace.StatusDenied, Error: control.Blocked(hooks.SubagentStop, why)}
		}
	}
	inv.endDispatch(sp, d.Args.AgentID, o, calls, skills, took)
	return o, nil
}

// Collect records one get_agent_results call of f (loop.ActCollect),
// which began to wait at since, and returns what the model reads.
func (s *Steps) Collect(ctx context.Context, key Key, f Frame, c model.ToolCall, since time.Time, a loop.Action) (string, error) {
	inv, err := s.rebuild(key, f)
	if err != nil {
		return "", err
	}
	sp := inv.rn.startSpan(trace.KindExecuteTool, "execute_tool "+loop.GetAgentResultsTool, inv.span.s.ID, inv.agent.Name, inv.depth,
		map[string]any{semconv.AttrToolName: loop.GetAgentResultsTool, semconv.AttrToolArguments: string(c.Args)})
	sp.s.StartedAt = since
	return inv.endCollect(sp, &a), nil
}
