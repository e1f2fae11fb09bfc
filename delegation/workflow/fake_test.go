package workflow

import (
	"context"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// fakeHost plays agents with functions and keeps the spans.
type fakeHost struct {
	mu     sync.Mutex
	agents map[string]func(ctx context.Context, task string, n int) loop.Outcome
	calls  map[string]int
	tasks  map[string][]string
	spans  []*fakeSpan
	seq    int
}

type fakeSpan struct {
	h                        *fakeHost
	id, parent, name, status string
	kind                     trace.Kind
	attrs                    map[string]any
	events                   []string
}

func newFake() *fakeHost {
	return &fakeHost{agents: map[string]func(context.Context, string, int) loop.Outcome{},
		calls: map[string]int{}, tasks: map[string][]string{}}
}

func (h *fakeHost) say(agent, text string) {
	h.agents[agent] = func(context.Context, string, int) loop.Outcome {
		return loop.Outcome{Status: trace.StatusOK, Result: text}
	}
}

func (h *fakeHost) StartSpan(kind trace.Kind, name, parent string, attrs map[string]any) Span {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	sp := &fakeSpan{h: h, id: name + "#" + string(rune('a'+h.seq%26)) + strings.Repeat("x", h.seq/26), parent: parent, name: name, kind: kind, attrs: maps.Clone(attrs)}
	h.spans = append(h.spans, sp)
	return sp
}

func (s *fakeSpan) ID() string { return s.id }
func (s *fakeSpan) End(st trace.Status, _ string, extra map[string]any) {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	s.status = string(st)
	maps.Copy(s.attrs, extra)
}
func (s *fakeSpan) Event(name string, _ map[string]any) {
	s.h.mu.Lock()
	s.events = append(s.events, name)
	s.h.mu.Unlock()
}

func (h *fakeHost) Invoke(ctx context.Context, parent string, a registry.Agent, task string) loop.Outcome {
	h.mu.Lock()
	h.calls[a.Name]++
	n := h.calls[a.Name]
	h.tasks[a.Name] = append(h.tasks[a.Name], task)
	f := h.agents[a.Name]
	h.mu.Unlock()
	h.StartSpan(trace.KindInvokeAgent, "invoke_agent "+a.Name, parent, nil)
	if f == nil {
		return loop.Outcome{Status: trace.StatusError, Error: "no such fake agent " + a.Name}
	}
	return f(ctx, task, n)
}

func (h *fakeHost) Agent(name string) (registry.Agent, bool) {
	if name == "code-reviewer" {
		return registry.Agent{Name: name, Enabled: true}, true
	}
	return registry.Agent{}, false
}

func (h *fakeHost) span(name string) *fakeSpan {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, s := range h.spans {
		if s.name == name {
			return s
		}
	}
	return nil
}

func mustParse(t testing.TB, src string) *Workflow {
	t.Helper()
	wf, probs := Parse("t.yaml", []byte(src), func(n string) bool { return n == "code-reviewer" })
	if wf == nil {
		t.Fatalf("parse: %v", probs)
	}
	return wf
}

func noSleep(context.Context, time.Duration) error { return nil }
