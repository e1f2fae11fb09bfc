package temporal_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	flow "github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// The engines' runner: every row of engineCases (cases_test.go) runs once
// in-process and once on a real Temporal server, and must end the same on
// both: status, answer (or a workflow's outputs and report), error, the
// trace's shape and span events, and what the model was given unasked.
// The row's own expectations are then checked on the in-process run. All
// rows share one server and run in parallel, each with a worker of its own
// (on a task queue named after the row) in this process.

// engineCase is one row: what runs, on which files, and how it must end.
type engineCase struct {
	name string
	// What runs: an agent's request, or a workflow (flow: a shipped one
	// from workflows/ with its script and inputs; flowYAML: the row's own,
	// with inputs).
	req      delegation.Request
	flow     string
	flowYAML string
	inputs   map[string]any
	script   string                     // the script model's turns (a shipped workflow's own when empty)
	agents   map[string]string          // agent files beside agentsFS (name.md: text)
	files    map[string]string          // workspace files beside note.txt
	config   func(c *delegation.Config) // the runtime's configuration: caps, limits, budgets, models, agents
	want     expect
	// skip names the trace lines left out of the comparison, and blur the
	// parts of answers and errors; a comment on the row says why. A race
	// within each engine is a reason; a difference between the engines is
	// one only when docs/temporal.md ("Where it stops") names it, and a
	// bug otherwise, fixed in the loop or a driver. No row needs one today.
	skip func(line string) bool
	blur *regexp.Regexp
	// check asserts what only one engine's run shows (e.g. idempotency keys).
	check func(t *testing.T, in, on *ran)
}

// expect is a row's outcome: the status, words the answer (a workflow's
// report) must hold, the error, and trace lines counted (a line holding
// the key must appear exactly that many times).
type expect struct {
	status trace.Status
	result string // the whole answer, when given
	has    []string
	err    string
	lines  map[string]int
}

// ran is one engine's run of a row.
type ran struct {
	f      *fixture
	id     string
	status trace.Status
	result string // the answer, or a workflow's outputs and report
	err    string
	trace  []string // shape and span events, sorted
	heard  []string // what the model was given unasked
}

func TestEveryCaseEndsAlikeOnBothEngines(t *testing.T) {
	addr := temporaltest.Start(t, casesNamespace)
	for _, c := range engineCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			in := runInProcess(t, c)
			on := runOnTemporal(t, addr, c)
			if in == nil || on == nil {
				return
			}
			compare(t, c, in, on)
			c.recordsItsVersion(t, in, on)
			c.want.check(t, in)
			if c.check != nil {
				c.check(t, in, on)
			}
		})
	}
}

const casesNamespace = "agentry-cases"

// compare fails the row where the engines' runs differ.
func compare(t *testing.T, c engineCase, in, on *ran) {
	t.Helper()
	m := func(s, id string) string {
		if c.blur != nil {
			s = c.blur.ReplaceAllString(s, "…")
		}
		return mask(s, id)
	}
	if on.status != in.status || m(on.result, on.id) != m(in.result, in.id) || m(on.err, on.id) != m(in.err, in.id) {
		t.Errorf("on Temporal %s %q:\n%s\n\nin-process %s %q:\n%s", on.status, on.err, on.result, in.status, in.err, in.result)
	}
	skip := c.skip
	if skip == nil {
		skip = func(string) bool { return false }
	}
	ws, gs := slices.DeleteFunc(slices.Clone(in.trace), skip), slices.DeleteFunc(slices.Clone(on.trace), skip)
	if strings.Join(ws, "\n") != strings.Join(gs, "\n") {
		t.Errorf("trace on Temporal:\n%s\n\nin-process:\n%s", strings.Join(gs, "\n"), strings.Join(ws, "\n"))
	}
	if strings.Join(in.heard, "\n") != strings.Join(on.heard, "\n") {
		t.Errorf("the model was given on Temporal:\n%s\n\nin-process:\n%s", strings.Join(on.heard, "\n"), strings.Join(in.heard, "\n"))
	}
}

// recordsItsVersion fails a workflow row whose run, on either engine, does
// not record the version of the file it ran on its root span
// (workflow_version, the hash the version store keys the file's versions
// by).
func (c engineCase) recordsItsVersion(t *testing.T, in, on *ran) {
	t.Helper()
	if c.flow == "" && c.flowYAML == "" {
		return
	}
	want := registry.Hash([]byte(c.source(t)))
	for engine, r := range map[string]*ran{"in-process": in, "on Temporal": on} {
		var roots []any
		for _, sp := range r.f.spans(t, r.id) {
			if sp.Kind == trace.KindInvokeWorkflow {
				roots = append(roots, sp.Attributes[semconv.AttrWorkflowVersion])
			}
		}
		if len(roots) != 1 || roots[0] != want {
			t.Errorf("%s the run's invoke_workflow spans record workflow_version %v, want one with %s", engine, roots, want)
		}
	}
}

// check asserts the row's expectations on a run.
func (w expect) check(t *testing.T, r *ran) {
	t.Helper()
	if r.status != w.status || (w.result != "" && r.result != w.result) || !strings.Contains(r.err, w.err) {
		t.Errorf("run %s %q, want %s %q:\n%s", r.status, r.err, w.status, w.err, r.result)
	}
	for _, s := range w.has {
		if !strings.Contains(r.result, strings.ReplaceAll(s, "RUN", r.id)) {
			t.Errorf("no %q in the answer:\n%s", s, r.result)
		}
	}
	all := strings.Join(r.trace, "\n")
	for line, n := range w.lines {
		if got := strings.Count(all, line); got != n {
			t.Errorf("%d lines with %q in the trace, want %d:\n%s", got, line, n, all)
		}
	}
}

// masked hides what differs between any two runs: run IDs and durations.
var masked = regexp.MustCompile(`[0-9a-f]{32}|\d+(\.\d+)?(ns|µs|ms|s|m)\b|"duration_ms":\d+|\| \d+B \|`)

func mask(s, runID string) string {
	if runID != "" {
		s = strings.ReplaceAll(s, runID, "RUN")
	}
	return masked.ReplaceAllString(s, "…")
}

// fixtureFor is the row's runtime, with its model wrapped to keep what it
// was given.
func fixtureFor(t *testing.T, c engineCase) (*fixture, *hearing) {
	script := c.script
	if c.flow != "" && script == "" {
		script = readRepo("workflows/scripts/" + c.flow + ".script.yaml")
	}
	h := &hearing{}
	f := newFixture(t, script, func(cfg *delegation.Config) {
		cfg.Agents = agentsFor(t, c)
		if c.config != nil {
			c.config(cfg)
		}
		providers := model.Providers{}
		for name, p := range cfg.Models {
			providers[name] = func(spec string) (model.LLM, error) {
				m, err := p(spec)
				if err != nil {
					return nil, err
				}
				return &heardModel{LLM: m, h: h}, nil
			}
		}
		cfg.Models = providers
	})

	for name, text := range c.files {
		if err := os.WriteFile(filepath.Join(f.dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return f, h
}

// agentsFor is agentsFS with the row's agents, or a workflow's none (its
// agents are its own).
func agentsFor(t *testing.T, c engineCase) *registry.Registry {
	fsys := fstest.MapFS{}
	if c.flow == "" && c.flowYAML == "" {
		maps.Copy(fsys, agentsFS)
	}
	for name, text := range c.agents {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
	}
	snap, err := registry.Load(fsys, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return registry.New(snap)
}

func runInProcess(t *testing.T, c engineCase) *ran {
	f, h := fixtureFor(t, c)
	ctx := t.Context()
	if wf, inputs := c.workflow(t, f); wf != nil {
		res := flow.Run(ctx, f.rt, wf, "script", flow.Options{Inputs: inputs})
		return flowRan(t, f, h, wf, res, flow.Report(wf, res))
	}
	res, err := f.rt.Run(ctx, c.req)
	if err != nil {
		t.Errorf("in-process: %v", err)
		return nil
	}
	return agentRan(t, f, h, res)
}

func runOnTemporal(t *testing.T, addr string, c engineCase) *ran {
	f, h := fixtureFor(t, c)
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	queue := "cases-" + strings.NewReplacer("/", "-", " ", "-").Replace(c.name)
	eng, err := temporal.Dial(ctx, temporal.Config{Address: addr, Namespace: casesNamespace, TaskQueue: queue}, nil)
	if err != nil {
		t.Error(err)
		return nil
	}
	defer eng.Close()
	ready, served := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(served)
		_ = eng.Serve(ctx, &temporal.Activities{Steps: f.rt.Steps(), Flush: f.rec.Flush}, func() { close(ready) })
	}()
	defer func() { stop(); <-served }()
	<-ready
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if wf, inputs := c.workflow(t, f); wf != nil {
		x, err := eng.StartWorkflow(wctx, wf.File, []byte(c.source(t)), inputs, "script", wf.Timeout, nil)
		if err != nil {
			t.Error(err)
			return nil
		}
		out, err := x.Wait(wctx)
		if err != nil && out.Result.Error == "" {
			t.Errorf("on Temporal: %v", err)
			return nil
		}
		return flowRan(t, f, h, wf, out.Result, out.Report)
	}
	x, err := eng.Start(wctx, c.req, 0)
	if err != nil {
		t.Error(err)
		return nil
	}
	res, err := x.Wait(wctx)
	if err != nil && res.Error == "" {
		t.Errorf("on Temporal: %v", err)
		return nil
	}
	return agentRan(t, f, h, res)
}

func agentRan(t *testing.T, f *fixture, h *hearing, res delegation.Result) *ran {
	return &ran{f: f, id: res.RunID, status: res.Status, result: res.Result, err: res.Error,
		trace: runTrace(t, f, res.RunID), heard: h.unasked()}
}

func flowRan(t *testing.T, f *fixture, h *hearing, wf *flow.Workflow, res *flow.Result, report string) *ran {
	outputs, _ := json.MarshalIndent(res.Outputs, "", "  ")
	return &ran{f: f, id: res.RunID, status: trace.Status(res.Status), result: string(outputs) + "\n" + report, err: res.Error,
		trace: runTrace(t, f, res.RunID), heard: h.unasked()}
}

// runTrace is the run's shape and its span events, one sorted list.
func runTrace(t *testing.T, f *fixture, runID string) []string {
	out := append(shape(t, f, runID), spanEvents(t, f, runID)...)
	slices.Sort(out)
	return out
}

// workflow is the row's workflow and inputs, nil for an agent's request.
func (c engineCase) workflow(t *testing.T, f *fixture) (*flow.Workflow, map[string]any) {
	if c.flow == "" && c.flowYAML == "" {
		return nil, nil
	}
	file := c.flow + ".yaml"
	if c.flow == "" {
		file = "case.yaml"
	}
	wf, probs := flow.Parse(file, []byte(c.source(t)), func(name string) bool { _, ok := f.rt.Steps().Agent(name); return ok })
	if wf == nil {
		t.Fatalf("%s: %v", file, probs)
	}
	inputs := c.inputs
	if c.flow != "" {
		if err := json.Unmarshal([]byte(readRepo("workflows/scripts/"+c.flow+".inputs.json")), &inputs); err != nil {
			t.Fatal(err)
		}
	}
	resolved, err := flow.ResolveInputs(wf, inputs)
	if err != nil {
		t.Fatal(err)
	}
	return wf, resolved
}

func (c engineCase) source(t *testing.T) string {
	if c.flow != "" {
		return readRepo("workflows/" + c.flow + ".yaml")
	}
	return c.flowYAML
}

// shippedWorkflows lists the repository's workflows/*.yaml by name.
func shippedWorkflows() []string {
	_, here, _, _ := runtime.Caller(0)
	paths, _ := filepath.Glob(filepath.Join(filepath.Dir(here), "..", "..", "workflows", "*.yaml"))
	var names []string
	for _, p := range paths {
		names = append(names, strings.TrimSuffix(filepath.Base(p), ".yaml"))
	}
	return names
}

// hearing keeps what a run's model calls were given; heardModel is a
// model that tells it.
type hearing struct {
	mu   sync.Mutex
	msgs [][]model.Message
}

type heardModel struct {
	model.LLM
	h *hearing
}

func (m *heardModel) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	m.h.mu.Lock()
	m.h.msgs = append(m.h.msgs, slices.Clone(req.Messages))
	m.h.mu.Unlock()
	return m.LLM.Generate(ctx, req)
}

// unasked is what the model was given unasked (streamed results landed,
// results given after an early answer), with durations left out.
func (h *hearing) unasked() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, msgs := range h.msgs {
		for _, m := range msgs {
			c := mask(m.Content, "")
			if m.Role == model.RoleUser && (strings.HasPrefix(c, "Delegation results") || strings.HasPrefix(c, "These agents")) && !slices.Contains(out, c) {
				out = append(out, c) // each later call repeats the history
			}
		}
	}
	return out
}
