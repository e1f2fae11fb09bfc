package delegation

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/orchestrator"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// limitsFor is the limit hierarchy agent a works under: an orchestrator's
// (Config.OrchestratorLimits, when set), else Config.Limits.
func (r *Runtime) limitsFor(a *registry.Agent) orchestrator.Limits {
	if orchestrator.Orchestrates(a) && r.cfg.OrchestratorLimits != nil {
		return *r.cfg.OrchestratorLimits
	}
	return r.cfg.Limits
}

// limits is what this invocation's own caps come from (its turns, its
// background agents, the agents it dispatches): an orchestrator's own,
// wherever it runs, else its run's.
func (inv *invocation) limits() orchestrator.Limits {
	if orchestrator.Orchestrates(&inv.agent) {
		return inv.rn.rt.limitsFor(&inv.agent)
	}
	return inv.rn.limits
}

// ownTimeout is implemented by tools that bound their calls themselves
// (shell.run's timeout_s); Limits.ToolTimeout leaves them alone.
type ownTimeout interface{ OwnTimeout() bool }

// toolTimeout bounds one call of the tool named name by Limits.ToolTimeout.
func (inv *invocation) toolTimeout(ctx context.Context, name string) (context.Context, context.CancelFunc) {
	d := inv.rn.limits.ToolTimeout
	if t, ok := inv.tools[name].(ownTimeout); d <= 0 || ok && t.OwnTimeout() {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, d, fmt.Errorf("%w after %s (limits.tool_timeout)", orchestrator.ErrToolTimeout, d))
}

// callGuarded calls an allowed tool through its circuit breakers in this
// conversation: an open circuit answers at once with a circuit error the
// model can act on, and the call's outcome is counted on its circuits when
// it says something of the tool's dependency (a success, or a failure
// dependencyFailed names; a call cut short by the run's end counts for
// nothing). The states are on the span.
func (inv *invocation) callGuarded(ctx context.Context, t tool.Tool, c model.ToolCall) (trace.Status, string, error) {
	rn := inv.rn
	states, refused := rn.rt.breakers.Admit(rn.limits, rn.conversation, c.Name, rn.rt.cfg.Now())
	if tc := tool.CallFrom(ctx); tc != nil && len(states) > 0 {
		tc.SetAttribute(orchestrator.AttrCircuit, states[0])
		if len(states) > 1 {
			tc.SetAttribute(orchestrator.AttrCircuitServer, states[1])
		}
	}
	if refused != nil {
		return trace.StatusError, "", refused
	}
	out, err := callSafely(ctx, t, c)
	cause := context.Cause(ctx)
	timedOut := errors.Is(cause, orchestrator.ErrToolTimeout)
	if err == nil || cause == nil || timedOut {
		rn.rt.breakers.Record(rn.limits, rn.conversation, c.Name, err != nil && (timedOut || panicked(err) || orchestrator.DependencyFailed(err)), rn.rt.cfg.Now())
	}
	if errors.Is(err, tool.ErrDenied) {
		return trace.StatusDenied, "", err
	}
	if err != nil {
		return trace.StatusError, "", err
	}
	return trace.StatusOK, out, nil
}

// panicked reports whether err is a tool's panic, which its breaker counts
// as a failure of what it depends on.
func panicked(err error) bool {
	var pe *PanicError
	return errors.As(err, &pe)
}
