package prometheus

import (
	"strings"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// RecordRun counts a run when it is first seen and when it ends.
func (s *stream) RecordRun(r trace.Run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	running, seen := s.runs[r.ID]
	if !seen {
		if s.ended.has("run " + r.ID) {
			return
		}
		s.m.runsStarted.Inc()
		s.m.runsRunning.Inc()
		running = true
	}
	if !r.Status.IsFinal() {
		s.runs[r.ID] = true
		return
	}
	if running {
		delete(s.runs, r.ID)
		s.ended.add("run " + r.ID)
		s.m.runsRunning.Dec()
		s.m.runsEnded.WithLabelValues(status(string(r.Status))).Inc()
	}
}

// RecordSpan follows a span's queue state while it is open and counts it
// by kind when it ends.
func (s *stream) RecordSpan(sp trace.Span) {
	key := spanKey{sp.RunID, sp.ID}
	s.mu.Lock()
	defer s.mu.Unlock()
	open := s.spans[key]
	if open == nil {
		if s.ended.has("span " + sp.RunID + " " + sp.ID) {
			return
		}
		open = &openSpan{}
	}
	queued := !sp.Status.IsFinal() && waitsForRunCap(sp.Events)
	if queued != open.queued {
		if queued {
			s.m.queueDepth.Inc()
		} else {
			s.m.queueDepth.Dec()
		}
		open.queued = queued
	}
	if !sp.Status.IsFinal() {
		s.spans[key] = open
		return
	}
	delete(s.spans, key)
	s.ended.add("span " + sp.RunID + " " + sp.ID)
	s.count(sp)
}

// count adds an ended span to the metrics of its kind.
func (s *stream) count(sp trace.Span) {
	st := status(string(sp.Status))
	switch sp.Kind {
	case trace.KindChat:
		model := s.model(sp)
		s.m.modelCalls.WithLabelValues(model, st).Inc()
		s.m.modelTokens.WithLabelValues(model, "input").Add(float64(max(sp.InputTokens, 0)))
		s.m.modelTokens.WithLabelValues(model, "output").Add(float64(max(sp.OutputTokens, 0)))
		if cost := trace.SpanCost(sp); cost > 0 {
			s.m.modelCost.WithLabelValues(model).Add(cost)
		}
	case trace.KindExecuteTool:
		if _, delegation := sp.Attributes[semconv.AttrTargetAgent]; delegation {
			ds, _ := sp.Attributes[semconv.AttrDelegationStatus].(string)
			if ds == "" {
				ds = string(sp.Status)
			}
			s.m.delegations.WithLabelValues(status(ds)).Inc()
			return
		}
		if !sp.StartedAt.IsZero() && !sp.EndedAt.IsZero() {
			s.m.toolDuration.WithLabelValues(st).Observe(sp.EndedAt.Sub(sp.StartedAt).Seconds())
		}
	}
}

// model is a chat span's model as a label value: its model attribute, or
// the name after "chat "; past MaxModels distinct names, "other".
func (s *stream) model(sp trace.Span) string {
	m, _ := sp.Attributes[semconv.AttrModel].(string)
	if m == "" {
		m = strings.TrimPrefix(sp.Name, string(trace.KindChat)+" ")
	}
	if m == "" {
		return "unknown"
	}
	if !s.models[m] {
		if len(s.models) >= MaxModels {
			return "other"
		}
		s.models[m] = true
	}
	return m
}

// waitsForRunCap reports whether the last word of a span's events on the
// run-wide cap is "queued" (and not yet "admitted").
func waitsForRunCap(events []trace.Event) bool {
	waiting := false
	for _, e := range events {
		if c, _ := e.Attributes[semconv.EventAttrCap].(string); c != semconv.CapRun {
			continue
		}
		switch e.Name {
		case semconv.EventQueued:
			waiting = true
		case semconv.EventAdmitted:
			waiting = false
		}
	}
	return waiting
}

// recent remembers the last recentSize keys, so a record repeated after an
// end is not counted twice, in bounded memory.
type recent struct {
	keys []string
	at   int
	set  map[string]bool
}

const recentSize = 4096

func (r *recent) has(k string) bool { return r.set[k] }

func (r *recent) add(k string) {
	if r.set == nil {
		r.set, r.keys = map[string]bool{}, make([]string, recentSize)
	}
	if old := r.keys[r.at]; old != "" {
		delete(r.set, old)
	}
	r.keys[r.at], r.set[k] = k, true
	r.at = (r.at + 1) % recentSize
}
