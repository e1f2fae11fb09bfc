package delegation

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/hooks"
	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// DelegateTool is the name of the tool through which an agent hands work to
// a sub-agent.
const DelegateTool = permissions.DelegateTool

// target is one agent the delegate tool offers.
type target struct{ name, description string }

// targets decides every candidate (the snapshot's agents and general-purpose)
// for this invocation and returns the decisions and the allowed targets.
func (inv *invocation) targets() ([]permissions.Decision, []target) {
	all := inv.rn.agents.Agents()
	cands := make([]permissions.Agent, 0, len(all)+1)
	descs := make(map[string]string, len(all)+1)
	for _, a := range all {
		cands = append(cands, a.Permissions())
		descs[a.Name] = a.Description
	}
	for _, ra := range inv.rn.rt.cfg.Remote {
		if _, shadowed := descs[ra.Name]; !shadowed {
			a := ra.agent()
			cands = append(cands, a.Permissions())
			descs[ra.Name] = ra.Description
		}
	}
	if _, ok := descs[permissions.GeneralPurpose]; !ok {
		cands = append(cands, permissions.Agent{Name: permissions.GeneralPurpose, Enabled: true})
		descs[permissions.GeneralPurpose] = "A general-purpose agent with your own instructions and tools, in a fresh context."
	}
	decs := inv.rn.rt.cfg.Delegation.Targets(inv.branch, cands)
	var out []target
	for _, d := range decs {
		if d.Allowed {
			out = append(out, target{d.Subject, descs[d.Subject]})
		}
	}
	slices.SortFunc(out, func(a, b target) int { return strings.Compare(a.name, b.name) })
	return decs, out
}

// delegateSpec is the delegate tool as offered: its agent parameter is an
// enum of the allowed targets, whose descriptions it lists.
func delegateSpec(targets []target) model.Tool {
	var list strings.Builder
	list.WriteString("The agent to hand the task to. One of:")
	p := delegateParams{Type: "object", Required: []string{"agent", "task"}}
	for _, t := range targets {
		p.Properties.Agent.Enum = append(p.Properties.Agent.Enum, t.name)
		fmt.Fprintf(&list, "\n- %s: %s", t.name, strings.Join(strings.Fields(t.description), " "))
	}
	p.Properties.Agent.Type, p.Properties.Agent.Description = "string", list.String()
	p.Properties.Task = jsonSchema{Type: "string", Description: "What the sub-agent should do; it sees nothing else unless context says so."}
	p.Properties.Context = jsonSchema{Type: "string", Description: "What of this conversation the sub-agent gets: task_only, summary or full (full_history) (default: your setting); any other text is passed to the sub-agent as context."}
	p.Properties.Execution = jsonSchema{Type: "string", Enum: []string{registry.Sequential, registry.Parallel, registry.ParallelStreaming},
		Description: "How this turn's delegate calls run, at most as concurrent as your file allows (sequential < parallel < parallel_streaming)."}
	p.Properties.ID = jsonSchema{Type: "string", Description: "Optional name of this call, for depends_on of other calls in the same turn."}
	p.Properties.DependsOn = jsonSchema{Type: "array", Items: &jsonSchema{Type: "string"},
		Description: "ids of calls in this turn whose results this call needs; it starts after them."}
	params, _ := json.Marshal(p) // strings and lists only: it cannot fail
	return model.Tool{
		Name: DelegateTool,
		Description: "Hand a task to a sub-agent and get its final result. Several delegate calls in one turn run as a batch " +
			"(in parallel unless configured otherwise); use id and depends_on to run some after others.",
		Parameters: params,
	}
}

// delegateParams is the delegate tool's JSON Schema: an object with a
// property per field of loop.DelegateArgs but background, in the order the
// model reads them.
type delegateParams struct {
	Type       string `json:"type"`
	Properties struct {
		Agent     jsonSchema `json:"agent"`
		Task      jsonSchema `json:"task"`
		Context   jsonSchema `json:"context"`
		Execution jsonSchema `json:"execution"`
		ID        jsonSchema `json:"id"`
		DependsOn jsonSchema `json:"depends_on"`
	} `json:"properties"`
	Required []string `json:"required"`
}

// jsonSchema is the part of JSON Schema a tool parameter uses.
type jsonSchema struct {
	Type        string      `json:"type"`
	Enum        []string    `json:"enum,omitempty"`
	Items       *jsonSchema `json:"items,omitempty"`
	Description string      `json:"description,omitempty"`
}

// delegateResult is what the parent's model reads back (DESIGN §5).
type delegateResult struct {
	Status     trace.Status `json:"status"`
	Agent      string       `json:"agent"`
	Result     string       `json:"result"`
	Depth      int          `json:"depth"`
	DurationMS int64        `json:"duration_ms"`
	Error      string       `json:"error,omitempty"`
}

// text is r as JSON, what the parent's model reads.
func (r delegateResult) text() string {
	b, _ := json.Marshal(r) // strings and numbers only: it cannot fail
	return string(b)
}

// delegation is one delegate call (of a batch, or in the background) as
// its steps carry it out: checked, admitted, run, finished.
type delegation struct {
	call    model.ToolCall
	args    *loop.DelegateArgs
	argErr  string
	deps    []loop.Dependency // ended depends_on calls
	exec    loop.Exec
	conv    []model.Message // the delegator's conversation, which context modes read
	sp      *span
	started time.Time
	target  registry.Agent
	remote  *RemoteAgent // the target runs elsewhere (remote.go)
	mode    string
	model   resolved
	task    string
	note    string                // free-text context for the child (control.go)
	ask     *permissions.Decision // the target needs approval
	res     delegateResult
	out     string // res as JSON, what the parent's model reads
	done    bool
	// remoteAttrs are what a remote target's end says of its task (its
	// id, the card's URL), for the delegate call's span too.
	remoteAttrs map[string]any
	// queuedMS is how long the call waited, from its span's start (when it
	// was ready) to its admission: the span's queued_ms, and the waited_ms
	// of its last admitted event.
	queuedMS int64
}

// newDelegation is the delegation of a call the loop scheduled.
func newDelegation(it *loop.Item) delegation {
	return delegation{call: it.Call, args: &it.Args, argErr: it.ArgErr, deps: it.Deps, exec: it.Exec, conv: it.Conv}
}

// outcome is how d ended, for the loop.
func (d *delegation) outcome() loop.Outcome {
	return loop.Outcome{Status: d.res.Status, Result: d.res.Result, Error: d.res.Error}
}

// begin starts the delegation's execute_tool span.
func (inv *invocation) begin(d *delegation) {
	if d.sp != nil {
		return
	}
	attrs := map[string]any{
		semconv.AttrToolName: DelegateTool, semconv.AttrToolArguments: string(d.call.Args), semconv.AttrToolCallID: d.call.ID,
		semconv.AttrTargetAgent: d.args.Agent,
	}
	d.sp = inv.rn.startSpan(trace.KindExecuteTool, "execute_tool "+DelegateTool, inv.span.s.ID, inv.agent.Name, inv.depth, attrs)
	d.started = d.sp.s.StartedAt
}

// finishAttrs is how many attributes finish adds to a delegation span's
// end record besides the caller's: a caller that makes the map sizes it
// with them.
const finishAttrs = 8

// finish ends the delegation with res and records it on its span. extra,
// which the caller hands over, becomes the end record's map (with the
// span's start attributes and the result added), so a caller with
// attributes of its own makes the one map the end needs.
func (inv *invocation) finish(d *delegation, status trace.Status, result, errText string, extra map[string]any) {
	inv.begin(d)
	d.done = true
	now := inv.rn.rt.cfg.Now() // the duration the model reads is the span's
	d.res = delegateResult{Status: status, Agent: d.args.Agent, Result: result, Depth: inv.depth + 1,
		DurationMS: now.Sub(d.started).Milliseconds(), Error: errText}
	d.out = d.res.text()
	if extra == nil {
		extra = make(map[string]any, finishAttrs)
	}
	extra[semconv.AttrDelegationStatus], extra[semconv.AttrToolResult] = word(string(status)), d.out
	if d.mode != "" {
		extra[semconv.AttrContextMode] = word(d.mode)
	}
	execAttrs(d.exec, extra)
	d.sp.endAt(now, status, errText, extra)
}

// delegationStep carries out a loop action on a delegate call.
func (inv *invocation) delegationStep(w *work) loop.Event {
	d, a := w.dl, &w.a
	switch a.Kind {
	case loop.ActRefuse:
		inv.begin(d)
		inv.refuse(d, a.Outcome.Status, a.Refused, a.Outcome.Error, nil)
	case loop.ActCheck:
		if inv.prepare(d) {
			return loop.Event{Kind: loop.EvChecked, Item: a.Item}
		}
	case loop.ActAdmit:
		if inv.prepare(d) && inv.admit(w.ctx, d) {
			return loop.Event{Kind: loop.EvSlot, Item: a.Item}
		}
	case loop.ActSlot:
		if inv.admit(w.ctx, d) {
			return loop.Event{Kind: loop.EvSlot, Item: a.Item}
		}
	case loop.ActRun:
		inv.runChildSafely(w.ctx, d)
	case loop.ActFinish:
		inv.finish(d, a.Outcome.Status, "", a.Outcome.Error, nil)
	}
	return loop.Event{Kind: loop.EvDone, Item: a.Item, Text: d.out, Outcome: d.outcome()}
}

// prepare checks a delegation that is ready to go: arguments, permission
// (checked again at run time), target, model, and the run's agent limit. It
// reports false when it finished the delegation itself.
func (inv *invocation) prepare(d *delegation) bool {
	inv.begin(d)
	if why := inv.rn.budgetSpent(); why != "" {
		inv.rn.notStarted(d.args.Agent, d.args.Task, inv.depth+1)
		inv.refuse(d, trace.StatusLimit, RefusedBudget, "not started: budget spent: "+why, nil)
		return false
	}
	if dec := inv.mayDelegate; !dec.Allowed {
		inv.refuse(d, trace.StatusDenied, inv.mayDelegateKind(), dec.Reason, map[string]any{semconv.AttrPermissions: []permissions.Decision{dec}})
		return false
	}
	if d.argErr != "" {
		inv.refuse(d, trace.StatusError, loop.RefusedArguments, d.argErr, nil)
		return false
	}
	t, ok := inv.rn.agents.Agent(d.args.Agent)
	var remote *RemoteAgent
	if !ok {
		if remote, ok = inv.rn.rt.remote(d.args.Agent); ok {
			t = remote.agent()
		}
	}
	if !ok && d.args.Agent == permissions.GeneralPurpose {
		t, ok = inv.generalPurpose(), true
	}
	if !ok {
		inv.refuse(d, trace.StatusDenied, RefusedUnknownAgent, fmt.Sprintf("denied: %v %q", ErrUnknownAgent, d.args.Agent), nil)
		return false
	}
	dec, ok := inv.offer.decision(t.Name) // decided when the tool was offered: same branch, same snapshot
	if !ok {
		dec = inv.rn.rt.cfg.Delegation.Target(inv.branch, t.Permissions())
	}
	if !dec.Allowed {
		inv.refuse(d, trace.StatusDenied, RefusedPermission, dec.Reason, map[string]any{semconv.AttrPermissions: []permissions.Decision{dec}})
		return false
	}
	d.target, d.remote = t, remote
	if dec.Ask {
		d.ask = &dec // asked for in runChild (approval.go)
	}
	d.mode, d.note = contextArg(d.args.Context, inv.agent.Subagents.Context)
	if remote == nil { // a remote agent's model is its own business
		m, err := inv.rn.models.forAgent(&t, &inv.model)
		if err != nil {
			inv.refuse(d, trace.StatusError, RefusedModel, err.Error(), nil)
			return false
		}
		d.model = m
	}
	if !inv.rn.countAgent() {
		inv.refuse(d, trace.StatusError, RefusedMaxAgents, fmt.Sprintf("max agents per run (%d) reached", inv.rn.rt.cfg.MaxAgentsPerRun), nil)
		return false
	}
	d.task = d.args.Task + dependencyResults(d.deps)
	return true
}

// generalPurpose is the built-in sub-agent: this agent's prompt and tools in
// a fresh context, unable to delegate further. It keeps the parent's
// max_turns, retry policy and timeout, as a copy of the parent would.
func (inv *invocation) generalPurpose() registry.Agent {
	a := inv.agent
	return registry.Agent{Name: permissions.GeneralPurpose, Description: "general-purpose", Model: "inherit",
		Prompt: a.Prompt, MaxTurns: a.MaxTurns, Retry: a.Retry, Timeout: a.Timeout, Enabled: true,
		Subagents: registry.Subagents{Rules: permissions.Rules{Allow: []string{}}}}
}

func dependencyResults(deps []loop.Dependency) string {
	if len(deps) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nResults of the tasks this one depends on:")
	for _, dep := range deps {
		fmt.Fprintf(&b, "\n- [%s] %s: %s", dep.ID, dep.Agent, dep.Result)
	}
	return b.String()
}

// admit takes a run-wide slot for d, whose place under its delegator's
// caps the loop has given it. It reports false when the wait was cut
// short (the delegation is then finished).
//
// Nothing starts once the run is cancelled (or the delegator timed out): a
// call that reaches admission then, or is granted a slot as the context
// ends, gives the slot back and ends with the context's status.
func (inv *invocation) admit(ctx context.Context, d *delegation) bool {
	if err := context.Cause(ctx); err != nil {
		o := failed(ctx, err)
		inv.finish(d, o.Status, "", o.Error, nil)
		return false
	}
	admitted, err := inv.takeSlot(ctx, d)
	if err != nil {
		o := failed(ctx, err)
		inv.finish(d, o.Status, "", o.Error, nil)
		return false
	}
	if admitted.IsZero() {
		admitted = inv.rn.rt.cfg.Now()
	}
	d.queuedMS = admitted.Sub(d.started).Milliseconds()
	return true
}

// takeSlot takes a run-wide slot for d. When it has to wait, d's span gets
// a queued event as it joins the line and an admitted event when the slot
// is its own, and takeSlot returns the admission time (else the zero
// time).
func (inv *invocation) takeSlot(ctx context.Context, d *delegation) (time.Time, error) {
	f := inv.rn.global
	var queued bool
	err := f.AcquireNoting(ctx, func() {
		queued = true
		inv.waited(d, &loop.Action{Kind: loop.ActQueued, Cap: semconv.CapRun, Limit: f.Size()})
	})
	if err != nil || !queued {
		return time.Time{}, err
	}
	return inv.waited(d, &loop.Action{Kind: loop.ActAdmitted, Cap: semconv.CapRun, Limit: f.Size()}), nil
}

// waited records on d's span that it joined (ActQueued) or left
// (ActAdmitted) the line of a cap, and returns when. The admitted event's
// waited_ms counts from the span's start, as queued_ms does, so the two
// agree.
func (inv *invocation) waited(d *delegation, a *loop.Action) time.Time {
	attrs := map[string]any{semconv.EventAttrCap: a.Cap, semconv.EventAttrLimit: a.Limit}
	if a.Cap == semconv.CapAgent || a.Cap == semconv.CapTurn {
		attrs[semconv.EventAttrAgent] = inv.agent.Name
	}
	if a.Kind == loop.ActQueued {
		d.sp.event(semconv.EventQueued, attrs)
		return time.Time{}
	}
	now := inv.rn.rt.cfg.Now()
	attrs[semconv.EventAttrWaitedMS] = now.Sub(d.started).Milliseconds()
	d.sp.event(semconv.EventAdmitted, attrs)
	return now
}

// runChildSafely is runChild that survives a panic: the sub-agent recovers
// its own, so one here is the runtime's (or its sink's), and it becomes this
// delegation's error result instead of the end of the process.
func (inv *invocation) runChildSafely(ctx context.Context, d *delegation) {
	defer func() {
		v := recover()
		if v == nil || d.done {
			return
		}
		pe := recovered("delegation to "+d.args.Agent, v)
		defer func() { _ = recover() }() // a sink that panics again loses only this record
		inv.finish(d, trace.StatusError, "", pe.Error(), panicAttrs(pe))
	}()
	inv.runChild(ctx, d)
}

// runChild runs an admitted delegation's sub-agent to its end.
func (inv *invocation) runChild(ctx context.Context, d *delegation) {
	var c child
	if !inv.childOf(ctx, d, &c) {
		return
	}
	hooked := inv.rn.rt.cfg.Hooks != nil
	if hooked && inv.subagentStart(ctx, d) {
		return
	}
	var o loop.Outcome
	attrs := make(map[string]any, finishAttrs+2)
	attrs[semconv.AttrQueuedMS] = d.queuedMS
	if d.remote != nil {
		o, _ = inv.runRemote(ctx, d, &c, remoteContext(&c), RemoteAttempt{})
		for k, v := range d.remoteAttrs {
			attrs[k] = v
		}
	} else {
		ch := inv.rn.newInvocation(&c)
		ch.slot = true
		o = ch.run(ctx)
		withSkills(attrs, ch.loadedSkills())
	}
	if hooked {
		o = inv.subagentStop(ctx, d, o)
	}
	inv.finish(d, o.Status, o.Result, o.Error, attrs)
}

// childOf fills c with the sub-agent d starts, or ends d and reports false
// when it may not start (cancelled since admission, not approved, no
// summary to give it).
func (inv *invocation) childOf(ctx context.Context, d *delegation, c *child) bool {
	if err := context.Cause(ctx); err != nil { // cancelled since admission: do not start
		o := failed(ctx, err)
		inv.endUnstarted(d, o.Status, o.Error)
		return false
	}
	if why, st := inv.gateDelegation(ctx, d); why != "" {
		inv.endUnstarted(d, st, why)
		return false
	}
	*c = child{agent: d.target, parent: inv, model: d.model, task: d.task, mode: d.mode, passed: d.task, parentID: d.sp.s.ID}
	switch d.mode {
	case registry.ContextSummary:
		sum, err := inv.summarize(ctx, d.sp.s.ID, d.conv)
		if err != nil {
			o := failed(ctx, err)
			inv.endUnstarted(d, o.Status, "summary for the sub-agent: "+o.Error)
			return false
		}
		c.message = fmt.Sprintf("Context from %s (a summary of its conversation so far):\n%s\n\nYour task:\n%s", inv.agent.Name, sum, d.task)
		c.passed = c.message
	case registry.ContextFull:
		c.history = slices.Clone(d.conv[:len(d.conv)-1])
		c.passed = map[string]any{"messages": c.history, "task": d.task}
	}
	withNote(c, d)
	return true
}

// endUnstarted ends an admitted delegation whose sub-agent did not start.
func (inv *invocation) endUnstarted(d *delegation, st trace.Status, why string) {
	inv.rn.global.Release()
	inv.finish(d, st, "", why, map[string]any{semconv.AttrQueuedMS: d.queuedMS})
}

// subagentStart fires the subagent_start hooks and reports whether they
// blocked the sub-agent (d is then ended).
func (inv *invocation) subagentStart(ctx context.Context, d *delegation) bool {
	block, why := inv.rn.hook(ctx, d.sp, hooks.SubagentStart, inv.subagentEvent(d))
	if block {
		inv.endUnstarted(d, trace.StatusDenied, control.Blocked(hooks.SubagentStart, why))
	}
	return block
}

// subagentStop fires the subagent_stop hooks with how the sub-agent ended,
// o, and returns the delegation's outcome.
func (inv *invocation) subagentStop(ctx context.Context, d *delegation, o loop.Outcome) loop.Outcome {
	ev := inv.subagentEvent(d)
	ev.Status, ev.Result, ev.Error = string(o.Status), &o.Result, o.Error
	if block, why := inv.rn.hook(ctx, d.sp, hooks.SubagentStop, ev); block {
		o = loop.Outcome{Status: trace.StatusDenied, Error: control.Blocked(hooks.SubagentStop, why)}
	}
	return o
}

const summaryPrompt = "Summarise the conversation so far for a sub-agent that will take over part of the work. " +
	"Keep facts, decisions and open questions; leave out pleasantries. Answer with the summary only."

// summarize asks this agent's model for a summary of its conversation conv,
// traced as a chat span under parent.
func (inv *invocation) summarize(ctx context.Context, parent string, conv []model.Message) (string, error) {
	msgs := make([]model.Message, 0, len(conv))
	msgs = append(msgs, conv[:len(conv)-1]...)
	msgs = append(msgs, model.Message{Role: model.RoleUser, Content: summaryPrompt})
	req := model.Request{Agent: inv.agent.Name, System: inv.agent.Prompt}
	resp, err := inv.chat(ctx, parent, &req, msgs, model.PurposeSummary)
	if err != nil {
		return "", err
	}
	return resp.Text, nil
}
