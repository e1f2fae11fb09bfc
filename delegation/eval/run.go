package eval

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// DefaultParallel is how many cases run at once when Options.Parallel is 0.
const DefaultParallel = 4

// Attributes of a case's run's root span, which tag it with its eval.
const (
	AttrSuite = semconv.AttrEvalSuite
	AttrCase  = semconv.AttrEvalCase
	AttrEval  = "eval_id"
)

// Options configure Run.
type Options struct {
	// Runtime is the configuration the cases run with: the agents (today's
	// files, a version, another folder), tools, permissions, limits, and
	// the sink their traces go to. Run adds the cases' script models to
	// Models and its own collector to Sink.
	Runtime delegation.Config
	// Workflows finds the workflow a workflow suite runs.
	Workflows func(name string) (*workflow.Workflow, error)
	// Parallel is how many cases run at once (0 means DefaultParallel).
	Parallel int
	// Label says what the cases ran with ("current", "version 3f2a9c1d",
	// "agents ./other"); Version is the target's version, when known.
	Label, Version string
	// OnCase, when set, hears each case as it ends.
	OnCase func(trace.EvalCase)
	// Now is the clock (nil means time.Now).
	Now func() time.Time
}

// Report is one eval: the run of every case of a suite.
type Report struct {
	Eval  trace.Eval
	Cases []trace.EvalCase
}

// Run runs every case of s, at most Parallel at once, and returns how each
// went. A case that cannot start fails with the reason; Run itself fails
// only for a suite it cannot run at all (an unknown workflow, a runtime
// that cannot be built).
func Run(ctx context.Context, s *Suite, opt Options) (Report, error) {
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	wf, err := suiteWorkflow(s, opt)
	if err != nil {
		return Report{}, err
	}
	col := newCollector()
	cfg := opt.Runtime
	cfg.Sink = trace.Tee(cfg.Sink, col)
	cfg.Models = withCaseModels(cfg.Models, s)
	rt, err := delegation.New(cfg)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Eval: trace.Eval{ID: trace.NewRunID(), Suite: s.Name, Target: s.Target(), Kind: s.Kind(),
		Label: opt.Label, Version: opt.Version, StartedAt: now()}}
	if rep.Eval.Version == "" && s.Agent != "" && cfg.Agents != nil {
		if a, ok := cfg.Agents.Snapshot().Agent(s.Agent); ok {
			rep.Eval.Version = a.Version
		}
	}
	r := &suiteRun{s: s, wf: wf, rt: rt, cfg: cfg, col: col, evalID: rep.Eval.ID}
	rep.Cases = r.runCases(ctx, opt.Parallel, opt.OnCase)
	rep.Eval.EndedAt = now()
	rep.Eval.Versions = col.versions()
	for _, c := range rep.Cases {
		if c.Passed {
			rep.Eval.Passed++
		} else {
			rep.Eval.Failed++
		}
	}
	return rep, nil
}

// suiteWorkflow is the workflow a workflow suite runs; nil for an agent
// suite.
func suiteWorkflow(s *Suite, opt Options) (*workflow.Workflow, error) {
	if s.Workflow == "" {
		return nil, nil
	}
	if opt.Workflows == nil {
		return nil, fmt.Errorf("suite %s runs workflow %q, but no workflows folder is open", s.Name, s.Workflow)
	}
	wf, err := opt.Workflows(s.Workflow)
	if err != nil {
		return nil, fmt.Errorf("suite %s: %w", s.Name, err)
	}
	return wf, nil
}

// suiteRun is one eval of a suite: what each of its cases runs with.
type suiteRun struct {
	s      *Suite
	wf     *workflow.Workflow // nil for an agent suite
	rt     *delegation.Runtime
	cfg    delegation.Config // the runtime's, for the judge
	col    *collector        // the traces of the cases' runs
	evalID string
}

// runCases runs every case, parallel at once (0 means DefaultParallel),
// and returns how each went, in the suite's order; onCase, when set, hears
// each as it ends.
func (r *suiteRun) runCases(ctx context.Context, parallel int, onCase func(trace.EvalCase)) []trace.EvalCase {
	cases := make([]trace.EvalCase, len(r.s.Cases))
	if parallel <= 0 {
		parallel = DefaultParallel
	}
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range r.s.Cases {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			c := r.runCase(ctx, &r.s.Cases[i])
			c.EvalID = r.evalID
			mu.Lock()
			cases[i] = c
			mu.Unlock()
			if onCase != nil {
				onCase(c)
			}
		})
	}
	wg.Wait()
	return cases
}

// runCase runs one case and checks its expectations.
func (r *suiteRun) runCase(ctx context.Context, c *Case) trace.EvalCase {
	ec := trace.EvalCase{Name: c.Name}
	runID, o, err := r.outcome(ctx, c)
	ec.RunID = runID
	if err != nil {
		return failedToStart(ec, err)
	}
	o.Run, o.Spans = r.col.run(ec.RunID)
	ec.Output, ec.Status = o.Output, o.Run.Status
	ec.InputTokens, ec.OutputTokens, ec.CostUSD = o.Run.InputTokens, o.Run.OutputTokens, o.Run.CostUSD
	if !o.Run.EndedAt.IsZero() {
		ec.Duration = o.Run.EndedAt.Sub(o.Run.StartedAt)
	}
	ec.Checks = c.Expect.check(o)
	if c.Expect.Rubric != "" {
		ec.Checks = append(ec.Checks, judgeCase(ctx, r.s, c, r.cfg, ec.RunID, o.Output))
	}
	ec.Passed = true
	for _, ch := range ec.Checks {
		if !ch.Passed {
			ec.Passed = false
			ec.Failures = append(ec.Failures, ch.Kind+": "+ch.Detail)
		}
	}
	return ec
}

// outcome runs case c, through the suite's workflow or its agent, and
// returns its run's ID and what the run gave; an error means the run could
// not start (the ID is then that of a run the runtime refused, if any).
func (r *suiteRun) outcome(ctx context.Context, c *Case) (runID string, o Outcome, err error) {
	spec := caseModel(r.s, c)
	if r.wf != nil {
		inputs, err := workflow.ResolveInputs(r.wf, c.Inputs)
		if err != nil {
			return "", o, fmt.Errorf("inputs: %w", err)
		}
		res := workflow.Run(ctx, r.rt, r.wf, spec, workflow.Options{Inputs: inputs})
		o.Status = res.Status
		o.Output, o.Value = outputOf(res.Final)
		if res.Final == nil {
			o.Output, o.Value = "", nil
		}
		return res.RunID, o, nil
	}
	res, err := r.rt.Run(ctx, delegation.Request{Agent: r.s.Agent, Task: c.Task, Model: spec,
		Attributes: map[string]any{AttrSuite: r.s.Name, AttrCase: c.Name, AttrEval: r.evalID}})
	if err != nil {
		var rej *delegation.RejectedError
		if errors.As(err, &rej) {
			runID = rej.RunID
		}
		return runID, o, err
	}
	o.Status, o.Output, o.Value = string(res.Status), res.Result, parseJSON(res.Result)
	return res.RunID, o, nil
}

func failedToStart(ec trace.EvalCase, err error) trace.EvalCase {
	ec.Status = trace.StatusError
	ec.Checks = []trace.EvalCheck{{Kind: "status", Detail: "the run could not start: " + err.Error()}}
	ec.Failures = []string{"status: the run could not start: " + err.Error()}
	return ec
}

// judgeCase asks the judge about a rubric: the case's own script plays it
// when the case has one, else the suite's judge, its model, or the
// configured default.
func judgeCase(ctx context.Context, s *Suite, c *Case, cfg delegation.Config, runID, output string) trace.EvalCheck {
	spec := s.Judge
	switch {
	case c.Script != nil:
		spec = caseModel(s, c)
	case spec == "":
		spec = scriptPath(s, s.Model)
	}
	if spec == "" {
		spec = cfg.DefaultModel
	}
	llm, err := cfg.Models.Resolve(spec, cfg.Aliases)
	if err != nil {
		return trace.EvalCheck{Kind: "rubric", Detail: "no judge: " + err.Error(),
			Judge: &trace.Judgement{Model: spec, Rubric: c.Expect.Rubric}}
	}
	return judge(ctx, llm, "judge-"+runID, c.Expect.Rubric, c.Task, output)
}

// caseKey is the script: name that stands for a case's own turns.
func caseKey(s *Suite, c *Case) string { return s.File + "#" + c.Name }

// caseModel is the model spec a case runs on.
func caseModel(s *Suite, c *Case) string {
	if c.Script != nil {
		return "script:" + caseKey(s, c)
	}
	return scriptPath(s, s.Model)
}

// scriptPath finds a script:FILE spec's file: from the working directory
// (a project root running agentry eval evals/x.yaml), else beside the
// suite, else from the folder that holds the suite's folder (a path
// written from the project root, read from elsewhere).
func scriptPath(s *Suite, spec string) string {
	p, ok := strings.CutPrefix(spec, "script:")
	if !ok || filepath.IsAbs(p) {
		return spec
	}
	dir := filepath.Dir(s.File)
	for _, candidate := range []string{p, filepath.Join(dir, p), filepath.Join(filepath.Dir(dir), p)} {
		if _, err := os.Stat(candidate); err == nil {
			return "script:" + candidate
		}
	}
	return spec
}

// withCaseModels adds the cases' own turns to providers: script:KEY of a
// case (caseKey) plays them, any other script: spec goes to the provider
// configured. Each case's turns are one model, since a case is one run.
func withCaseModels(providers model.Providers, s *Suite) model.Providers {
	cases := map[string]model.LLM{}
	for i := range s.Cases {
		if c := &s.Cases[i]; c.Script != nil {
			cases[caseKey(s, c)] = c.Script
		}
	}
	if len(cases) == 0 {
		return providers
	}
	out := maps.Clone(providers)
	if out == nil {
		out = model.Providers{}
	}
	next := providers["script"]
	out["script"] = func(name string) (model.LLM, error) {
		if m, ok := cases[name]; ok {
			return m, nil
		}
		if next == nil {
			return nil, fmt.Errorf("model script:%s: %w %q", name, model.ErrUnknownProvider, "script")
		}
		return next(name)
	}
	return out
}

// collector keeps the latest state of the runs and spans the cases make,
// so each case is checked on its own run without reading the store back.
type collector struct {
	mu    sync.Mutex
	runs  map[string]trace.Run
	spans map[string][]trace.Span // by run, in first-recorded order
	index map[string]int          // span ID → index in its run's list
}

func newCollector() *collector {
	return &collector{runs: map[string]trace.Run{}, spans: map[string][]trace.Span{}, index: map[string]int{}}
}

func (c *collector) RecordRun(r trace.Run) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runs[r.ID] = r
}

func (c *collector) RecordSpan(sp trace.Span) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i, ok := c.index[sp.RunID+"\x00"+sp.ID]; ok {
		c.spans[sp.RunID][i] = sp
		return
	}
	c.index[sp.RunID+"\x00"+sp.ID] = len(c.spans[sp.RunID])
	c.spans[sp.RunID] = append(c.spans[sp.RunID], sp)
}

// run returns a run and its spans in the order they started.
func (c *collector) run(id string) (trace.Run, []trace.Span) {
	c.mu.Lock()
	defer c.mu.Unlock()
	spans := append([]trace.Span(nil), c.spans[id]...)
	sortByStart(spans)
	return c.runs[id], spans
}

// versions are the agent_version of every agent the cases invoked.
func (c *collector) versions() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]string{}
	for _, spans := range c.spans {
		for _, sp := range spans {
			if v, ok := sp.Attributes[semconv.AttrAgentVersion].(string); ok && sp.Kind == trace.KindInvokeAgent {
				out[sp.Agent] = v
			}
		}
	}
	return out
}

func sortByStart(spans []trace.Span) {
	slices.SortStableFunc(spans, func(a, b trace.Span) int { return a.StartedAt.Compare(b.StartedAt) })
}
