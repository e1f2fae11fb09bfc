package progress

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/semconv"
)

// Printer is a Sink that prints a line as branches start and finish, and
// as tool calls fail or wait, indented by depth. Its zero value with W set
// is ready; it is safe for concurrent use.
type Printer struct {
	mu sync.Mutex
	// W receives the lines, one Write per line.
	W io.Writer
	// WarningsOnly prints only what the user must know even in --json
	// mode: an agent running on the default instead of its file's model.
	WarningsOnly bool
	seen         map[string]trace.Status
	events       map[string]int // events of each span printed so far
}

// New prints to w; with warningsOnly (--json, whose stdout is the result
// alone) it prints warnings only.
func New(w io.Writer, warningsOnly bool) *Printer { return &Printer{W: w, WarningsOnly: warningsOnly} }

// RecordRun does nothing: the lines are about spans.
func (p *Printer) RecordRun(trace.Run) {}

// RecordSpan prints what changed in sp since the Printer last saw it. Spans
// may come live from the runtime or read back from a store, where a span
// that started and ended between two reads comes once, ended.
func (p *Printer) RecordSpan(sp trace.Span) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seen == nil {
		p.seen = map[string]trace.Status{}
	}
	prev, known := p.seen[sp.ID]
	p.seen[sp.ID] = sp.Status
	indent := strings.Repeat("  ", sp.Depth)
	if !p.WarningsOnly {
		p.queued(sp, indent)
	}
	if known && prev == sp.Status {
		return
	}
	if fallback, ok := sp.Attributes[delegation.AttrModelFallback]; ok && !known {
		fmt.Fprintf(p.W, "%s⚠ warning: %s: %s\n", indent, sp.Agent, OneLine(fmt.Sprint(fallback), 300))
	}
	if p.WarningsOnly {
		return
	}
	switch {
	case sp.Kind == trace.KindInvokeAgent && sp.Status == trace.StatusRunning:
		fmt.Fprintf(p.W, "%s▶ %s started: %s\n", indent, sp.Agent, OneLine(fmt.Sprint(sp.Attributes[semconv.AttrTask]), 100))
		p.withheld(sp, indent)
	case sp.Kind == trace.KindInvokeAgent:
		line := fmt.Sprintf("%s%s %s %s in %s", indent, mark(sp.Status), sp.Agent, sp.Status, sp.EndedAt.Sub(sp.StartedAt).Round(time.Millisecond))
		if sp.Error != "" {
			line += ": " + OneLine(sp.Error, 160)
		}
		fmt.Fprintln(p.W, line)
	case sp.Status == trace.StatusRunning:
	case sp.Status == trace.StatusDenied && answeredNo(sp): // approvalLine said so, with who and why
	case sp.Kind == trace.KindExecuteTool && sp.Attributes[semconv.AttrToolName] == delegation.DelegateTool:
		if kind, ok := refused(sp); ok {
			fmt.Fprintf(p.W, "%s  %s delegation to %v refused (%s): %s\n", indent, mark(sp.Status), target(sp), kind, OneLine(sp.Error, 200))
		}
	case sp.Status != trace.StatusOK:
		fmt.Fprintf(p.W, "%s  %s %s %s: %s\n", indent, mark(sp.Status), strings.TrimPrefix(sp.Name, "execute_tool "), sp.Status, OneLine(sp.Error, 160))
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
// over a cap wait; they are not refused), for each approval, and for each
// state a remote agent's task reports.
func (p *Printer) queued(sp trace.Span, indent string) {
	if p.events == nil {
		p.events = map[string]int{}
	}
	for _, ev := range sp.Events[min(p.events[sp.ID], len(sp.Events)):] {
		if ev.Name == semconv.EventApproval {
			approvalLine(p.W, sp, ev, indent)
		}
		if ev.Name == semconv.EventRemoteStatus { // a remote agent's task (delegation/a2a)
			line := fmt.Sprintf("%s  ⇄ %s: remote task %v %v", indent, sp.Agent, ev.Attributes[semconv.AttrA2ATaskID], ev.Attributes[semconv.EventAttrState])
			if msg, ok := ev.Attributes[semconv.EventAttrMessage]; ok {
				line += ": " + OneLine(fmt.Sprint(msg), 160)
			}
			fmt.Fprintln(p.W, line)
		}
		if ev.Name != semconv.EventQueued {
			continue
		}
		limit := ev.Attributes[semconv.EventAttrLimit]
		cap := fmt.Sprintf("the run-wide delegation.max_concurrent (%v)", limit)
		switch ev.Attributes[semconv.EventAttrCap] {
		case semconv.CapAgent:
			cap = fmt.Sprintf("%v's subagents.max_concurrent (%v)", ev.Attributes[semconv.EventAttrAgent], limit)
		case semconv.CapTurn:
			cap = fmt.Sprintf("the agents %v started in one turn, limits.turn_agents (%v),", ev.Attributes[semconv.EventAttrAgent], limit)
		}
		fmt.Fprintf(p.W, "%s  ⏸ delegation to %v waits for a slot: %s is reached\n", indent, target(sp), cap)
	}
	p.events[sp.ID] = len(sp.Events)
}

// withheld prints the runtime's note that an agent naming sub-agents is not
// offered the delegate tool at this depth, so its delegation stops without
// a refused call to show.
func (p *Printer) withheld(sp trace.Span, indent string) {
	for _, ev := range sp.Events {
		if ev.Name == delegation.EventDelegationWithheld {
			fmt.Fprintf(p.W, "%s  ⊘ %s may not delegate here (%v): %s\n", indent, sp.Agent,
				ev.Attributes[delegation.EventAttrRefused], OneLine(fmt.Sprint(ev.Attributes[delegation.EventAttrReason]), 200))
		}
	}
}

// target is the agent a delegation asked for, as far as the span knows it.
func target(sp trace.Span) any {
	if t, ok := sp.Attributes[semconv.AttrTargetAgent]; ok && t != nil && t != "" {
		return t
	}
	return "an unnamed agent"
}

// hasChild is false for a delegation that never started its sub-agent.
func hasChild(sp trace.Span) bool { _, ok := sp.Attributes[semconv.AttrQueuedMS]; return ok }

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

// OneLine is s on one line, its runs of white space made one space, cut
// to n characters: the runtime's own rule (control.OneLine), for the
// messages of the CLI and the servers.
func OneLine(s string, n int) string { return control.OneLine(s, n) }

// approvalLine prints the answer to an asked call as the run's progress:
// "✓ shell.run approved by web" or "⊘ shell.run denied by cli:lee: reason".
func approvalLine(w io.Writer, sp trace.Span, ev trace.Event, indent string) {
	a := ev.Attributes
	what := strings.TrimPrefix(sp.Name, "execute_tool ")
	if what == delegation.DelegateTool {
		what = fmt.Sprintf("delegation to %v", target(sp))
	}
	line := fmt.Sprintf("%s  ✓ %s approved by %v", indent, what, a[semconv.EventAttrDecidedBy])
	if a[semconv.EventAttrVerdict] != string(approval.Approved) {
		line = fmt.Sprintf("%s  ⊘ %s denied by %v", indent, what, a[semconv.EventAttrDecidedBy])
	}
	if why, ok := a[semconv.EventAttrReason].(string); ok && why != "" {
		line += ": " + OneLine(why, 160)
	}
	fmt.Fprintln(w, line)
}

// answeredNo reports a call a person (or a rule answering for one) refused.
func answeredNo(sp trace.Span) bool {
	return slices.ContainsFunc(sp.Events, func(ev trace.Event) bool {
		return ev.Name == semconv.EventApproval && ev.Attributes[semconv.EventAttrVerdict] != string(approval.Approved)
	})
}

// SpanReader reads the spans of a run changed since a cursor; trace.Store
// satisfies it (see there for the contract).
type SpanReader interface {
	SpansSince(ctx context.Context, runID string, cursor int64) ([]trace.Span, int64, error)
}

// FollowInterval is how often Follow reads the store.
const FollowInterval = 100 * time.Millisecond

// Tail feeds the run's spans to p as the store gets them (from a Temporal
// worker, or this process's recorder), until done is closed. A read is
// fed in the order things happened, as the runtime would have fed p live:
// each span's start at its start time (an agent that started and ended
// between two reads is fed as started first, so its "▶ started" line is
// printed), each end at its end time; a parent that ended after its
// children is printed after them.
func (p *Printer) Tail(store SpanReader, runID string, done <-chan struct{}) {
	seen := map[string]bool{}
	follow(store, runID, done, func(spans []trace.Span) {
		type happening struct {
			at time.Time
			sp trace.Span
		}
		var hs []happening
		for _, sp := range spans {
			if !seen[sp.ID] && sp.Status.IsFinal() {
				started := sp
				started.Status, started.Error, started.EndedAt = trace.StatusRunning, "", time.Time{}
				hs = append(hs, happening{sp.StartedAt, started})
			}
			seen[sp.ID] = true
			at := sp.StartedAt
			if sp.Status.IsFinal() {
				at = sp.EndedAt
			} else if n := len(sp.Events); n > 0 {
				at = sp.Events[n-1].Time
			}
			hs = append(hs, happening{at, sp})
		}
		slices.SortStableFunc(hs, func(a, b happening) int { return a.at.Compare(b.at) })
		for _, h := range hs {
			p.RecordSpan(h.sp)
		}
	})
}

// Follow reads the run's spans written since the last read every
// FollowInterval until done is closed, then once more, so the records
// written last are read too, and hands each read's spans to each in start
// order.
func Follow(store SpanReader, runID string, done <-chan struct{}, each func(trace.Span)) {
	follow(store, runID, done, func(spans []trace.Span) {
		for _, sp := range spans {
			each(sp)
		}
	})
}

// follow is Follow handing each read whole, in start order.
func follow(store SpanReader, runID string, done <-chan struct{}, batch func([]trace.Span)) {
	var cursor int64
	read := func() {
		spans, next, err := store.SpansSince(context.Background(), runID, cursor)
		if err != nil || len(spans) == 0 {
			return
		}
		cursor = next
		slices.SortStableFunc(spans, func(a, b trace.Span) int { return a.StartedAt.Compare(b.StartedAt) })
		batch(spans)
	}
	read() // a run that is over, or nearly, needs no tick
	t := time.NewTicker(FollowInterval)
	defer t.Stop()
	for {
		select {
		case <-done:
			read()
			return
		case <-t.C:
			read()
		}
	}
}

// TailSteps prints a workflow run's steps as the workers record them, with
// the lines an in-process workflow run prints (Step): "running" when a
// step starts, its status when it ends. A step span rewritten by a worker
// that took over the run is printed once.
func TailSteps(store SpanReader, runID string, w io.Writer, done <-chan struct{}) {
	printed := map[string]int{} // span ID → 1 running printed, 2 end printed
	Follow(store, runID, done, func(sp trace.Span) {
		if sp.Kind != trace.KindWorkflowStep || printed[sp.ID] == 2 {
			return
		}
		id, _ := sp.Attributes["step_id"].(string)
		_, ran := sp.Attributes["depends_on"] // a step that never ran (skipped, aborted) has none
		if printed[sp.ID] == 0 && ran {
			Step(w, id, "running")
			printed[sp.ID] = 1
		}
		// A step the reaper marked interrupted (its worker died) has no
		// step_status: the worker taking over ends it again.
		if st, ended := sp.Attributes["step_status"]; ended && sp.Status.IsFinal() {
			Step(w, id, fmt.Sprint(st))
			printed[sp.ID] = 2
		}
	})
}

// Step prints a workflow step's line: "step ID STATUS".
func Step(w io.Writer, id, status string) {
	fmt.Fprintf(w, "step %-20s %s\n", id, status)
}
