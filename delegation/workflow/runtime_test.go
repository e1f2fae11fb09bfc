package workflow_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/delegation/tool/filesystem"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

type memSink struct {
	runs  map[string]trace.Run
	spans map[string]trace.Span
}

func (m *memSink) RecordRun(r trace.Run)   { m.runs[r.ID] = r }
func (m *memSink) RecordSpan(s trace.Span) { m.spans[s.ID] = s }

// TestRegistryAgentStepAndInlineToolsThroughTheRuntime: a step naming a
// Markdown agent runs it with its own prompt; an inline agent's Claude Code
// tool names are mapped and intersected with the global rules.
func TestRegistryAgentStepAndInlineToolsThroughTheRuntime(t *testing.T) {
	snap, err := registry.Load(fstest.MapFS{"reviewer.md": {Data: []byte("---\nname: code-reviewer\ndescription: Reviews\n---\nYou review code.\n")}}, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := script.Parse([]byte("writer:\n  - say: some code\ncode-reviewer:\n  - say: looks good\n"))
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{runs: map[string]trace.Run{}, spans: map[string]trace.Span{}}
	rt, err := delegation.New(delegation.Config{Agents: registry.New(snap), DefaultModel: "script:x", Sink: sink,
		Models:      model.Providers{"script": func(string) (model.LLM, error) { return m, nil }},
		GlobalTools: permissionsAllowAll()})
	if err != nil {
		t.Fatal(err)
	}
	source := []byte(`workflow: {name: review}
agents:
  writer: {prompt: "write", tools: [Read, Bash]}
steps:
  - {id: write, agent: writer}
  - {id: review, agent: code-reviewer, input: "Review: {{steps.write.output}}"}
`)
	wf, probs := workflow.Parse("w.yaml", source, func(n string) bool { _, ok := snap.Agent(n); return ok })
	if wf == nil {
		t.Fatal(probs)
	}
	res := workflow.Run(context.Background(), rt, wf, "", workflow.Options{})
	if res.Status != workflow.StatusOK || res.Final != "looks good" {
		t.Fatalf("%s %v %s", res.Status, res.Final, res.Error)
	}
	run := sink.runs[res.RunID]
	if run.Status != trace.StatusOK || run.Agent != "review" || run.Agents != 2 {
		t.Errorf("run %+v", run)
	}
	for _, sp := range sink.spans {
		if sp.Kind == trace.KindInvokeWorkflow && sp.Attributes[semconv.AttrWorkflowVersion] != registry.Hash(source) {
			t.Errorf("the run's root records workflow_version %v, want the file's hash %s", sp.Attributes[semconv.AttrWorkflowVersion], registry.Hash(source))
		}
		if sp.Name == "invoke_agent code-reviewer" && sp.Attributes[semconv.AttrTask] != "Review: some code" {
			t.Errorf("registry agent task %v", sp.Attributes[semconv.AttrTask])
		}
		if sp.Name == "invoke_agent writer" {
			if parent := sink.spans[sp.ParentID]; parent.Name != "step write" || parent.Kind != trace.KindWorkflowStep {
				t.Errorf("writer under %+v", parent)
			}
		}
	}
	if a := wf.Agents["writer"]; !strings.Contains(strings.Join(a.Rules.Allow, ","), "filesystem") || !strings.Contains(strings.Join(a.Rules.Allow, ","), "shell") {
		t.Errorf("Read, Bash mapped to %v", a.Rules.Allow)
	}
}

func permissionsAllowAll() permissions.Rules { return permissions.Rules{Allow: []string{"*"}} }

type hookSink struct {
	memSink
	on func(trace.Span)
}

func (h *hookSink) RecordSpan(s trace.Span) { h.memSink.RecordSpan(s); h.on(s) }

// TestCancellingTheContextCancelsTheWorkflowRun: Ctrl-C reaches every step.
func TestCancellingTheContextCancelsTheWorkflowRun(t *testing.T) {
	m, err := script.Parse([]byte("slow:\n  - {latency: 1h, say: never}\n"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sink := &hookSink{memSink: memSink{runs: map[string]trace.Run{}, spans: map[string]trace.Span{}}}
	sink.on = func(s trace.Span) {
		if s.Kind == trace.KindChat && s.Status == trace.StatusRunning {
			cancel()
		}
	}
	rt, err := delegation.New(delegation.Config{Agents: registry.New(nil), DefaultModel: "script:x", Sink: sink,
		Models: model.Providers{"script": func(string) (model.LLM, error) { return m, nil }}})
	if err != nil {
		t.Fatal(err)
	}
	wf, probs := workflow.Parse("w.yaml", []byte("workflow: {name: c}\nagents: {slow: {prompt: s}}\nsteps:\n  - {id: one, agent: slow}\n"), nil)
	if wf == nil {
		t.Fatal(probs)
	}
	res := workflow.Run(ctx, rt, wf, "", workflow.Options{})
	if res.Status != workflow.StatusCancelled || res.Steps[0].Status != workflow.StepCancelled {
		t.Fatalf("%s %s", res.Status, res.Steps[0].Status)
	}
	if r := sink.runs[res.RunID]; r.Status != trace.StatusCancelled {
		t.Errorf("run recorded %s", r.Status)
	}
}

// TestParallelRetriesRecordEventsSafely: branches retrying at once write
// events on one step span (run with -race).
func TestParallelRetriesRecordEventsSafely(t *testing.T) {
	m, err := script.Parse([]byte("a:\n  - say: not json\n"))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := delegation.New(delegation.Config{Agents: registry.New(nil), DefaultModel: "script:x",
		Models: model.Providers{"script": func(string) (model.LLM, error) { return m, nil }}})
	if err != nil {
		t.Fatal(err)
	}
	var y strings.Builder
	y.WriteString("workflow: {name: p}\nagents:\n  a: {prompt: a, retry: {max_attempts: 3}, on_failure: skip}\nsteps:\n  - id: fan\n    output: {format: json}\n    parallel:\n")
	for i := range 8 {
		y.WriteString("      - {agent: a, output_key: k" + string(rune('0'+i)) + "}\n")
	}
	wf, probs := workflow.Parse("p.yaml", []byte(y.String()), nil)
	if wf == nil {
		t.Fatal(probs)
	}
	res := workflow.Run(context.Background(), rt, wf, "", workflow.Options{RetryBase: 1})
	if res.Status != workflow.StatusPartial || res.Steps[0].Attempts != 24 || res.Steps[0].Retries != 16 {
		t.Fatalf("%s attempts %d retries %d: %s", res.Status, res.Steps[0].Attempts, res.Steps[0].Retries, res.Error)
	}
}

// TestTokenBudgetStopsTheWorkflowAsAnError: the runtime's budget covers
// every step; going over is an error, not a cancel.
func TestTokenBudgetStopsTheWorkflowAsAnError(t *testing.T) {
	m, err := script.Parse([]byte("a:\n  - {say: one, tokens: {input: 50, output: 50}}\nb:\n  - {latency: 1h, say: two}\n"))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := delegation.New(delegation.Config{Agents: registry.New(nil), DefaultModel: "script:x", TokenBudget: 10,
		Models: model.Providers{"script": func(string) (model.LLM, error) { return m, nil }}})
	if err != nil {
		t.Fatal(err)
	}
	wf, probs := workflow.Parse("b.yaml", []byte("workflow: {name: b}\nagents: {a: {prompt: a}, b: {prompt: b}}\nsteps:\n  - {id: one, agent: a}\n  - {id: two, agent: b}\n"), nil)
	if wf == nil {
		t.Fatal(probs)
	}
	res := workflow.Run(context.Background(), rt, wf, "", workflow.Options{})
	if res.Status != workflow.StatusError || !strings.Contains(res.Error, "token budget") {
		t.Fatalf("%s %q", res.Status, res.Error)
	}
}

// toolsRecorder records the tool names each agent's model calls were offered.
type toolsRecorder struct {
	model.LLM
	mu      sync.Mutex
	offered map[string][]string
}

func (r *toolsRecorder) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	r.mu.Lock()
	names := make([]string, len(req.Tools))
	for i, t := range req.Tools {
		names[i] = t.Name
	}
	r.offered[req.Agent] = names
	r.mu.Unlock()
	return r.LLM.Generate(ctx, req)
}

// An inline agent declared tools: [Read] is offered that tool alone: no
// delegate (to general-purpose) and no get_agent_results (issue 30).
func TestAnInlineAgentIsOfferedExactlyTheToolsItLists(t *testing.T) {
	ws, err := filesystem.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	m, err := script.Parse([]byte("reader:\n  - say: read it\n"))
	if err != nil {
		t.Fatal(err)
	}
	rec := &toolsRecorder{LLM: m, offered: map[string][]string{}}
	rt, err := delegation.New(delegation.Config{Agents: registry.New(nil), DefaultModel: "script:x", Tools: ws.Tools(),
		Models:      model.Providers{"script": func(string) (model.LLM, error) { return rec, nil }},
		GlobalTools: permissionsAllowAll()})
	if err != nil {
		t.Fatal(err)
	}
	wf, probs := workflow.Parse("w.yaml", []byte("workflow: {name: r}\nagents:\n  reader: {prompt: read, tools: [Read]}\nsteps:\n  - {id: one, agent: reader}\n"), nil)
	if wf == nil {
		t.Fatal(probs)
	}
	if res := workflow.Run(context.Background(), rt, wf, "", workflow.Options{}); res.Status != workflow.StatusOK {
		t.Fatalf("%s %s", res.Status, res.Error)
	}
	if got := rec.offered["reader"]; !slices.Equal(got, []string{"filesystem.read_file"}) {
		t.Errorf("reader was offered %v, want only filesystem.read_file", got)
	}
}
