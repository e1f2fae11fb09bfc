package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/trace"
)

// Printer is a trace.Sink that prints a line as branches start and
// finish, and as tool calls fail, indented by depth.
type Printer struct {
	mu sync.Mutex
	w  io.Writer
	// warningsOnly prints only what the user must know even in --json
	// mode: an agent running on the default instead of its file's model.
	warningsOnly bool
	seen         map[string]trace.Status
	events       map[string]int // events of each span printed so far
}

// New prints to w; with warningsOnly (--json, whose stdout is the result
// alone) it prints warnings only.
func New(w io.Writer, warningsOnly bool) *Printer {
	return &Printer{w: w, warningsOnly: warningsOnly, seen: map[string]trace.Status{}, events: map[string]int{}}
}

// RecordRun implements trace.Sink; a run's end is the command's to print.
func (p *Printer) RecordRun(trace.Run) {}

// RecordSpan implements trace.Sink.
func (p *Printer) RecordSpan(sp trace.Span) {
	p.mu.Lock()
	defer p.mu.Unlock()
	prev, known := p.seen[sp.ID]
	p.seen[sp.ID] = sp.Status
	indent := strings.Repeat("  ", sp.Depth)
	if !p.warningsOnly {
		p.queued(sp, indent)
	}
	if known && prev == sp.Status {
		return
	}
	if fallback, ok := sp.Attributes[delegation.AttrModelFallback]; ok && !known {
		fmt.Fprintf(p.w, "%s⚠ warning: %s: %s\n", indent, sp.Agent, OneLine(fmt.Sprint(fallback), 300))
	}
	if p.warningsOnly {
		return
	}
	switch {
	case sp.Kind == trace.KindInvokeAgent && sp.Status == trace.StatusRunning:
		fmt.Fprintf(p.w, "%s▶ %s started: %s\n", indent, sp.Agent, OneLine(fmt.Sprint(sp.Attributes[trace.AttrTask]), 100))
		p.withheld(sp, indent)
	case sp.Kind == trace.KindInvokeAgent:
		line := fmt.Sprintf("%s%s %s %s in %s", indent, mark(sp.Status), sp.Agent, sp.Status, sp.EndedAt.Sub(sp.StartedAt).Round(time.Millisecond))
		if sp.Error != "" {
			line += ": " + OneLine(sp.Error, 160)
		}
		fmt.Fprintln(p.w, line)
	case sp.Status == trace.StatusRunning:
	case sp.Kind == trace.KindExecuteTool && sp.Attributes[trace.AttrToolName] == delegation.DelegateTool:
		if kind, ok := refused(sp); ok {
			fmt.Fprintf(p.w, "%s  %s delegation to %v refused (%s): %s\n", indent, mark(sp.Status), target(sp), kind, OneLine(sp.Error, 200))
		}
	case sp.Status != trace.StatusOK:
		fmt.Fprintf(p.w, "%s  %s %s %s: %s\n", indent, mark(sp.Status), strings.TrimPrefix(sp.Name, "execute_tool "), sp.Status, OneLine(sp.Error, 160))
	}
}

// refused reports a delegation that never started its sub-agent, and the
// kind of refusal: the runtime's (delegation.AttrRefused: depth,
// permission, max_agents, dependency, ...), else its status for a denial,
// a skip, a tripped limit or an error before the child began.
func refused(sp trace.Span) (kind string, ok bool) {
	if k, ok := sp.Attributes[delegation.AttrRefused]; ok {
		return fmt.Sprint(k), true
	}
	switch sp.Status {
	case trace.StatusDenied, trace.StatusSkipped:
		return string(sp.Status), true
	case trace.StatusError, trace.StatusLimit:
		return string(sp.Status), !hasChild(sp)
	}
	return "", false
}

// queued prints a line for each delegation that has to wait for a
// concurrency slot, so a run held up by a cap does not look stuck (calls
// over a cap wait; they are not refused), and each answered approval.
func (p *Printer) queued(sp trace.Span, indent string) {
	for _, ev := range sp.Events[min(p.events[sp.ID], len(sp.Events)):] {
		if ev.Name == trace.EventApproval {
			approvalLine(p.w, sp, ev, indent)
		}
		if ev.Name != trace.EventQueued {
			continue
		}
		limit := ev.Attributes[trace.EventAttrLimit]
		cap := fmt.Sprintf("the run-wide delegation.max_concurrent (%v)", limit)
		switch ev.Attributes[trace.EventAttrCap] {
		case trace.CapAgent:
			cap = fmt.Sprintf("%v's subagents.max_concurrent (%v)", ev.Attributes[trace.EventAttrAgent], limit)
		case trace.CapTurn:
			cap = fmt.Sprintf("the agents %v started in one turn, limits.turn_agents (%v),", ev.Attributes[trace.EventAttrAgent], limit)
		}
		fmt.Fprintf(p.w, "%s  ⏸ delegation to %v waits for a slot: %s is reached\n", indent, target(sp), cap)
	}
	p.events[sp.ID] = len(sp.Events)
}

// approvalLine prints the answer to an asked call: "✓ shell.run approved
// by web" or "⊘ shell.run denied by cli:lee: reason".
func approvalLine(w io.Writer, sp trace.Span, ev trace.Event, indent string) {
	a := ev.Attributes
	what := strings.TrimPrefix(sp.Name, "execute_tool ")
	if what == delegation.DelegateTool {
		what = fmt.Sprintf("delegation to %v", target(sp))
	}
	line := fmt.Sprintf("%s  ✓ %s approved by %v", indent, what, a[trace.EventAttrDecidedBy])
	if a[trace.EventAttrVerdict] != string(trace.ApprovalApproved) {
		line = fmt.Sprintf("%s  ⊘ %s denied by %v", indent, what, a[trace.EventAttrDecidedBy])
	}
	if why, ok := a[trace.EventAttrReason].(string); ok && why != "" {
		line += ": " + OneLine(why, 160)
	}
	fmt.Fprintln(w, line)
}

// withheld prints the runtime's note that an agent naming sub-agents is not
// offered the delegate tool at this depth, so its delegation stops without
// a refused call to show.
func (p *Printer) withheld(sp trace.Span, indent string) {
	for _, ev := range sp.Events {
		if ev.Name == delegation.EventDelegationWithheld {
			fmt.Fprintf(p.w, "%s  ⊘ %s may not delegate here (%v): %s\n", indent, sp.Agent,
				ev.Attributes[delegation.EventAttrRefused], OneLine(fmt.Sprint(ev.Attributes[delegation.EventAttrReason]), 200))
		}
	}
}

// target is the agent a delegation asked for, as far as the span knows it.
func target(sp trace.Span) any {
	if t, ok := sp.Attributes[trace.AttrTargetAgent]; ok && t != nil && t != "" {
		return t
	}
	return "an unnamed agent"
}

// hasChild is false for a delegation that never started its sub-agent.
func hasChild(sp trace.Span) bool { _, ok := sp.Attributes[trace.AttrQueuedMS]; return ok }

func mark(st trace.Status) string {
	switch st {
	case trace.StatusOK:
		return "✓"
	case trace.StatusDenied, trace.StatusSkipped:
		return "⊘"
	default:
		return "✗"
	}
}

// OneLine puts s on one line and cuts it to n runes and an ellipsis.
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
