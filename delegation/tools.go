package delegation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/hooks"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// decisions is the permission_decisions attribute of an invoke_agent span.
type decisions struct {
	Tools     []permissions.Decision `json:"tools"`
	Delegate  permissions.Decision   `json:"delegate"`
	Subagents []permissions.Decision `json:"subagents,omitempty"`
}

// workOut works out the toolset of inv, whose parent's is parent: its
// branch and permission chain, effective tools and delegation targets, the
// sorted tool list the model is offered, and the decisions for the trace.
func (inv *invocation) workOut(parent *toolset) *toolset {
	rt, a := inv.rn.rt, inv.agent
	own := permissions.Level{Name: a.Name, Rules: a.Tools}
	if parent == nil {
		inv.branch = []permissions.Agent{a.Permissions()}
		inv.chain = []permissions.Level{{Name: "global", Rules: rt.cfg.GlobalTools}, own}
	} else {
		inv.branch = append(slices.Clip(parent.branch), a.Permissions())
		inv.chain = append(slices.Clip(parent.chain), own)
	}
	inv.hasAsk = permissions.HasAsk(inv.chain)
	d := decisions{Tools: permissions.Tools(inv.chain, rt.known)}
	inv.tools = make(map[string]tool.Tool, len(d.Tools))
	inv.specs = make([]model.Tool, 0, len(d.Tools)+1)
	for _, dec := range d.Tools {
		if dec.Allowed {
			t := rt.tools[dec.Subject]
			inv.tools[dec.Subject] = t
			inv.specs = append(inv.specs, t.Spec())
		}
	}
	d.Delegate = rt.cfg.Delegation.MayDelegate(inv.branch)
	inv.mayDelegate = d.Delegate
	if d.Delegate.Allowed {
		inv.offer = inv.newOffer()
		d.Subagents = inv.offer.decisions
		if inv.offer.any {
			inv.specs = append(inv.specs, inv.offer.spec)
		}
	}
	inv.offerDispatch()
	slices.SortFunc(inv.specs, func(a, b model.Tool) int { return strings.Compare(a.Name, b.Name) })
	return &toolset{branch: inv.branch, chain: inv.chain, tools: inv.tools, specs: slices.Clip(inv.specs),
		decisions: d, spanName: "invoke_agent " + a.Name, namesAttr: toolNames(inv.specs), permissions: d,
		mayDelegate: inv.mayDelegate, offer: inv.offer, hidden: inv.hidden, hasAsk: inv.hasAsk}
}

// newOffer decides every delegation target of inv and builds the delegate tool.
func (inv *invocation) newOffer() *offer {
	decs, targets := inv.targets()
	o := &offer{decisions: decs, byName: make(map[string]permissions.Decision, len(decs)), any: len(targets) > 0}
	for _, d := range decs {
		o.byName[d.Subject] = d
	}
	if o.any {
		o.spec = delegateSpec(targets)
	}
	return o
}

func toolNames(specs []model.Tool) []string {
	out := make([]string, 0, len(specs))
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

// callTool runs one non-delegate tool call, traced as an execute_tool span.
// Every failure becomes the result text the model reads.
func (inv *invocation) callTool(ctx context.Context, c model.ToolCall) string {
	attrs := map[string]any{semconv.AttrToolName: c.Name, semconv.AttrToolArguments: string(c.Args), semconv.AttrToolCallID: c.ID}
	if k := tool.IdempotencyKey(ctx); k != "" { // set by Steps
		attrs[AttrIdempotencyKey] = k
	}
	sp := inv.rn.startSpan(trace.KindExecuteTool, "execute_tool "+c.Name, inv.span.s.ID, inv.agent.Name, inv.depth, attrs)
	// The call context lets a tool ask for capabilities (shell.network) and
	// record span attributes (todo.write's checklist).
	tc := &tool.Call{Granted: func(n string) bool { return permissions.Grant(inv.chain, n).Allowed }, Skills: inv.skillsOf()}
	ev := inv.toolEvent(c)
	// Hooks see only calls the permissions let through and that are made: a
	// denied or unknown tool, or any call on an ended context (a cancel, an
	// engine ending a call whose last attempt was lost), is refused by
	// runTool without running anyone's command; nobody is asked about it
	// either (approve), though an answer an engine waited for is recorded.
	if _, allowed := inv.tools[c.Name]; allowed {
		if out, st := inv.gateTool(ctx, sp, c); out != "" { // ask verdict: approval.go
			sp.end(st, out, map[string]any{semconv.AttrToolResult: out})
			return out
		}
		if ctx.Err() == nil {
			if block, why := inv.rn.hook(ctx, sp, hooks.PreTool, ev); block {
				out := control.Blocked(hooks.PreTool, why)
				sp.end(trace.StatusDenied, out, map[string]any{semconv.AttrToolResult: out})
				return out
			}
		}
	}
	tctx, stop := inv.toolTimeout(tool.WithCall(ctx, tc), c.Name)
	status, out, err := inv.runTool(tctx, c)
	timedOut := tctx.Err() != nil && ctx.Err() == nil
	stop()
	if err == nil {
		ev.Status, ev.ToolResponse = string(status), &out
		if block, why := inv.rn.hook(ctx, sp, hooks.PostTool, ev); block {
			out = control.Blocked(hooks.PostTool, why)
			sp.end(trace.StatusDenied, out, map[string]any{semconv.AttrToolResult: out})
			return out
		}
	}
	if err != nil {
		if HandedOver(ctx) { // the next attempt calls the tool again and ends the span
			return "error: " + err.Error()
		}
		if ctx.Err() != nil {
			o := failed(ctx, err)
			status = o.Status
		} else if timedOut {
			status, err = trace.StatusTimeout, context.Cause(tctx)
		}
		out = "error: " + err.Error()
		attrs := panicAttrs(err)
		if attrs == nil {
			attrs = make(map[string]any, 1)
		}
		attrs[semconv.AttrToolResult] = out
		sp.end(status, err.Error(), tc.Attributes(attrs))
		return out
	}
	sp.end(trace.StatusOK, "", tc.Attributes(map[string]any{semconv.AttrToolResult: out}))
	return out
}

// AttrIdempotencyKey is set on a tool call's execute_tool span when the
// engine gave the call an idempotency key (tool.IdempotencyKey): the same on
// every attempt of the call.
const AttrIdempotencyKey = "idempotency_key"

// errUnknownTool is returned for a call to a tool that does not exist at all.
var errUnknownTool = errors.New("unknown tool")

func (inv *invocation) runTool(ctx context.Context, c model.ToolCall) (trace.Status, string, error) {
	if err := context.Cause(ctx); err != nil {
		return trace.StatusCancelled, "", fmt.Errorf("not run: %w", err) // nothing starts after Cancel
	}
	t, ok := inv.tools[c.Name]
	if !ok {
		if _, exists := inv.rn.rt.tools[c.Name]; exists {
			dec := permissions.Tool(inv.chain, c.Name)
			return trace.StatusDenied, "", fmt.Errorf("tool %q is not allowed: %s", c.Name, dec.Reason)
		}
		return trace.StatusError, "", fmt.Errorf("%w %q: the tools offered are %s", errUnknownTool, c.Name, strings.Join(toolNames(inv.specs), ", "))
	}
	if !json.Valid(c.Args) && len(c.Args) > 0 {
		return trace.StatusError, "", fmt.Errorf("%w: arguments of %s are not valid JSON: %.200s", tool.ErrInvalidArgs, c.Name, c.Args)
	}
	// Patterns with an argument part (shell.run(git *)) decide the call
	// itself; a tool that takes no argument is never let through by one.
	arg, ok, err := tool.PatternArgument(t, c.Args)
	dec := permissions.Decision{Allowed: true}
	switch {
	case !ok:
		dec = permissions.WithoutArgument(inv.chain, c.Name)
	case err == nil:
		dec = permissions.Command(inv.chain, c.Name, arg)
	}
	if !dec.Allowed {
		return trace.StatusDenied, "", fmt.Errorf("call of %s is not allowed: %s", c.Name, dec.Reason)
	}
	return inv.callGuarded(ctx, t, c)
}

// callSafely runs the tool, turning a panic in it into an error for this
// call alone: the model reads it and the run goes on.
func callSafely(ctx context.Context, t tool.Tool, c model.ToolCall) (out string, err error) {
	defer func() {
		if v := recover(); v != nil {
			out, err = "", recovered("tool "+c.Name, v)
		}
	}()
	return t.Call(ctx, c.Args)
}
