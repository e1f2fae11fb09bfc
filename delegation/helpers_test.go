package delegation

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// memSink keeps the latest state of every run and span, like a store would.
type memSink struct {
	mu    sync.Mutex
	runs  map[string]trace.Run
	spans map[string]trace.Span
	order []string
}

func newSink() *memSink {
	return &memSink{runs: map[string]trace.Run{}, spans: map[string]trace.Span{}}
}

func (s *memSink) RecordRun(r trace.Run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs[r.ID] = r
}

func (s *memSink) RecordSpan(sp trace.Span) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.spans[sp.ID]; !ok {
		s.order = append(s.order, sp.ID)
	}
	s.spans[sp.ID] = sp
}

// named returns the spans with that name in the order they started.
func (s *memSink) named(name string) []trace.Span {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []trace.Span
	for _, id := range s.order {
		if sp := s.spans[id]; sp.Name == name {
			out = append(out, sp)
		}
	}
	return out
}

func (s *memSink) one(t *testing.T, name string) trace.Span {
	t.Helper()
	sps := s.named(name)
	if len(sps) != 1 {
		t.Fatalf("%d spans named %q, want 1", len(sps), name)
	}
	return sps[0]
}

func (s *memSink) all() []trace.Span {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]trace.Span, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, s.spans[id])
	}
	return out
}

// delegations returns the delegate execute_tool spans by target agent.
func (s *memSink) delegations() map[string]trace.Span {
	out := map[string]trace.Span{}
	for _, sp := range s.named("execute_tool delegate") {
		out[fmt.Sprint(sp.Attributes[semconv.AttrTargetAgent])] = sp
	}
	return out
}

// agentFile writes a minimal agent file; extra is more frontmatter.
func agentFile(name, extra string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " agent\n" + extra + "---\nYou are " + name + ".\n"
}

type fixture struct {
	rt   *Runtime
	sink *memSink
	reg  *registry.Registry
}

// setup builds a runtime over agents (name → extra frontmatter) whose
// default model plays scriptText.
func setup(t testing.TB, agents map[string]string, scriptText string, mut func(*Config)) fixture {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, extra := range agents {
		fsys[name+".md"] = &fstest.MapFile{Data: []byte(agentFile(name, extra))}
	}
	snap, err := registry.Load(fsys, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range snap.Problems() {
		if p.Severity == registry.SeverityError {
			t.Fatalf("agent problem: %v", p)
		}
	}
	sm, err := script.Parse([]byte(scriptText))
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New(snap)
	sink := newSink()
	cfg := Config{
		Agents:       reg,
		Models:       model.Providers{"script": func(string) (model.LLM, error) { return sm, nil }},
		DefaultModel: "script",
		Sink:         sink,
		Sleep:        func(context.Context, time.Duration) error { return nil },
		Logger:       slog.New(slog.DiscardHandler),
	}
	if mut != nil {
		mut(&cfg)
	}
	rt, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return fixture{rt: rt, sink: sink, reg: reg}
}

func (f fixture) run(t *testing.T, agent, task string) Result {
	t.Helper()
	return f.runIn(t, agent, task, "")
}

// runIn is run in conversation conv ("" = a conversation of its own).
func (f fixture) runIn(t *testing.T, agent, task, conv string) Result {
	t.Helper()
	res, err := f.rt.Run(context.Background(), Request{Agent: agent, Task: task, Conversation: conv})
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range f.sink.all() {
		if sp.Status == trace.StatusRunning || sp.EndedAt.IsZero() {
			t.Errorf("span %s %s left running", sp.Name, sp.ID)
		}
	}
	if r := f.sink.runs[res.RunID]; r.Status != res.Status || r.EndedAt.IsZero() {
		t.Errorf("recorded run = %+v, result %+v", r, res)
	}
	return res
}

// toolResult decodes a delegation span's result.
func toolResult(t *testing.T, sp trace.Span) delegateResult {
	t.Helper()
	var r delegateResult
	if err := json.Unmarshal([]byte(fmt.Sprint(sp.Attributes[semconv.AttrToolResult])), &r); err != nil {
		t.Fatalf("tool_result of %s: %v", sp.Name, err)
	}
	return r
}

func overlap(a, b trace.Span) bool {
	return a.StartedAt.Before(b.EndedAt) && b.StartedAt.Before(a.EndedAt)
}

// recorder is an LLM wrapper that records every request's messages and tools.
type recorder struct {
	model.LLM
	mu   sync.Mutex
	reqs map[string][]model.Request
}

func (r *recorder) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	r.mu.Lock()
	cp := *req
	cp.Messages = slices.Clone(req.Messages)
	if r.reqs == nil {
		r.reqs = map[string][]model.Request{}
	}
	r.reqs[req.Agent] = append(r.reqs[req.Agent], cp)
	r.mu.Unlock()
	return r.LLM.Generate(ctx, req)
}
