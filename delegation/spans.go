package delegation

import (
	"slices"
	"time"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// span is a trace span being recorded: recorded once when it starts and again
// when it ends, each time with its own attribute map (the Sink owns the map;
// a start map may be shared by spans, since nothing changes it).
type span struct {
	rn *run
	s  trace.Span
}

func (rn *run) startSpan(kind trace.Kind, name, parent, agent string, depth int, attrs map[string]any) *span {
	return rn.startSpanEvents(kind, name, parent, agent, depth, attrs, nil)
}

// startSpanEvents is startSpan with events known at the start, recorded in
// the span's first record (at its start time when theirs is zero), so a
// sink sees them with the start.
func (rn *run) startSpanEvents(kind trace.Kind, name, parent, agent string, depth int, attrs map[string]any, events []trace.Event) *span {
	now := rn.rt.cfg.Now()
	for i := range events {
		if events[i].Time.IsZero() {
			events[i].Time = now
		}
	}
	id := ""
	if rn.spanID != nil { // Steps: the same ID when a step is retried
		id = rn.spanID()
	} else {
		id = trace.NewSpanID()
	}
	sp := &span{rn: rn, s: trace.Span{
		ID: id, RunID: rn.trace.ID, ParentID: parent, Kind: kind, Name: name,
		Agent: agent, Depth: depth, Status: trace.StatusRunning, StartedAt: now, Attributes: attrs, Events: events,
	}}
	rn.sink.RecordSpan(sp.s)
	return sp
}

// end records the span's final state: its attributes with extra over them.
// extra becomes the final record's map (the start's went to the Sink), so
// the caller hands it over and does not touch it again.
func (sp *span) end(status trace.Status, errText string, extra map[string]any) {
	sp.endAt(sp.rn.rt.cfg.Now(), status, errText, extra)
}

// endAt is end at a time the caller read from the clock already.
func (sp *span) endAt(at time.Time, status trace.Status, errText string, extra map[string]any) {
	sp.s.Status, sp.s.Error, sp.s.EndedAt = status, errText, at
	if len(extra) > 0 {
		for k, v := range sp.s.Attributes {
			if _, over := extra[k]; !over {
				extra[k] = v
			}
		}
		sp.s.Attributes = extra
	}
	sp.rn.sink.RecordSpan(sp.s)
}

// event records that name happened now, during the span. The span keeps
// attrs; each event gets a new events slice, since the Sink may still hold
// the slice recorded before.
func (sp *span) event(name string, attrs map[string]any) {
	ev := trace.Event{Time: sp.rn.rt.cfg.Now(), Name: name, Attributes: attrs}
	sp.s.Events = append(slices.Clip(sp.s.Events), ev)
	sp.rn.sink.RecordSpan(sp.s)
}

// words are the few words attributes repeat (a status, a context or
// execution mode), each already in an interface: a constant in an
// interface is static data, a string variable put in one a new copy.
var words = [...]any{
	string(trace.StatusOK), string(trace.StatusError),
	registry.ContextTaskOnly, registry.ContextSummary, registry.ContextFull,
	registry.Parallel, registry.Sequential, registry.ParallelStreaming,
}

// word puts s in an attribute value without an allocation when it is one
// of the words.
func word(s string) any {
	for _, w := range words {
		if w == s {
			return w
		}
	}
	return s
}
