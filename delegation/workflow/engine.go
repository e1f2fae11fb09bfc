package workflow

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/loop"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// Step statuses, the step_status attribute.
const (
	StepOK            = "ok"
	StepError         = "error"
	StepSkipped       = "skipped"
	StepCancelled     = "cancelled"
	StepTimeout       = "timeout"
	StepFallback      = "fallback"
	StepMaxIterations = "max_iterations"
)

// Workflow run statuses.
const (
	StatusOK        = "ok"
	StatusPartial   = "partial"
	StatusError     = "error"
	StatusTimeout   = "timeout"
	StatusCancelled = "cancelled"
)

// Span is a trace span the engine opened.
type Span interface {
	ID() string
	End(status trace.Status, errText string, extra map[string]any)
	Event(name string, attrs map[string]any)
}

// Host is what the engine needs of the runtime: spans, agent invocations
// and registry agents. SessionHost adapts a delegation.Session.
type Host interface {
	StartSpan(kind trace.Kind, name, parent string, attrs map[string]any) Span
	Invoke(ctx context.Context, parent string, agent registry.Agent, task string) loop.Outcome
	Agent(name string) (registry.Agent, bool)
}

// SessionHost runs a workflow's steps on a delegation.Session.
type SessionHost struct{ *delegation.Session }

// StartSpan opens a span of the session. Parallel branches and map
// elements record events on their step's span at once, and a runtime span
// is not safe for that, so each span gets a lock.
func (h SessionHost) StartSpan(kind trace.Kind, name, parent string, attrs map[string]any) Span {
	return Locked(h.Session.StartSpan(kind, name, parent, attrs))
}

// Locked makes ref safe for the parallel branches of a step, which record
// events on their step's span at once; every Host's spans need it.
func Locked(ref delegation.SpanRef) Span { return &lockedSpan{ref: ref} }

type lockedSpan struct {
	mu  sync.Mutex
	ref delegation.SpanRef
}

func (s *lockedSpan) ID() string { return s.ref.ID() }

func (s *lockedSpan) End(st trace.Status, errText string, extra map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ref.End(st, errText, extra)
}

func (s *lockedSpan) Event(name string, attrs map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ref.Event(name, attrs)
}

// Options tune one run.
type Options struct {
	// Inputs are the resolved inputs (see ResolveInputs).
	Inputs map[string]any
	// RetryBase is the second of seed 000's backoff (linear: attempt×5×base,
	// exponential: 2^attempt×base, constant: 5×base, where attempt is the
	// one about to start). 0 means one second; tests shrink it.
	RetryBase time.Duration
	// Sleep waits between attempts; nil is a real timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// OnStep, when set, hears each step start ("running") and end.
	OnStep func(step *Step, status string, r *StepResult)
	// NoJudge leaves rules no pattern matches unjudged (with a warning).
	NoJudge bool
	// Tools, when set, is one more level of every step agent's permission
	// chain (delegation.SessionRequest.Tools): expose.permissions for a
	// run an outside tool asked for.
	Tools *permissions.Rules
	// Attributes are put on the root invoke_workflow span under keys the
	// engine does not set: who asked (an MCP, A2A or API caller) and the
	// traceparent of the caller's trace (delegation.Request.Attributes).
	Attributes map[string]any
}

// StepResult is how one step went.
type StepResult struct {
	ID       string        `json:"id"`
	Type     string        `json:"type"`
	Agent    string        `json:"agent"`
	Status   string        `json:"status"`
	Duration time.Duration `json:"duration_ns"`
	Attempts int           `json:"attempts"`
	Retries  int           `json:"retries"`
	Output   any           `json:"output"`
	Size     int           `json:"output_size"`
	Error    string        `json:"error,omitempty"`
	Notes    []string      `json:"notes,omitempty"`
	routed   bool          // skipped because a condition chose the other way
	partial  bool          // ok, but part of it was skipped by a failure policy
}

// Result is how a workflow run ended.
type Result struct {
	RunID    string         `json:"run_id"`
	Workflow string         `json:"workflow"`
	Status   string         `json:"status"`
	Outputs  map[string]any `json:"outputs"`
	Final    any            `json:"final"`
	Steps    []*StepResult  `json:"steps"`
	Warnings []string       `json:"warnings"`
	Duration time.Duration  `json:"duration_ns"`
	Error    string         `json:"error,omitempty"`
}

// errAbort stops the workflow after a step failed with on_failure abort.
var errAbort = errors.New("workflow aborted")

// engine is one run's state.
type engine struct {
	wf   *Workflow
	host Host
	opt  Options
	root Span

	mu      sync.RWMutex // guards env while steps write their outputs
	env     map[string]any
	steps   map[string]any
	results []*StepResult
	routes  []string // per conditional step: the chosen target
	done    []chan struct{}
	abort   context.CancelCauseFunc

	wmu      sync.Mutex
	warnings []string
}

// Execute runs wf on host under the root span. ctx carries cancellation.
func Execute(ctx context.Context, host Host, wf *Workflow, opt Options) *Result {
	if opt.RetryBase <= 0 {
		opt.RetryBase = time.Second
	}
	if opt.Sleep == nil {
		opt.Sleep = model.Sleep
	}
	start := time.Now()
	e := &engine{wf: wf, host: host, opt: opt, steps: map[string]any{},
		results: make([]*StepResult, len(wf.Steps)), routes: make([]string, len(wf.Steps)),
		done: make([]chan struct{}, len(wf.Steps))}
	e.env = map[string]any{"inputs": opt.Inputs, "steps": e.steps}
	for i := range e.done {
		e.done[i] = make(chan struct{})
	}
	attrs := map[string]any{semconv.AttrWorkflow: wf.Name, semconv.AttrWorkflowFile: wf.File, "inputs": opt.Inputs}
	if wf.Hash != "" { // the file's content it runs; none for a workflow built in code
		attrs[semconv.AttrWorkflowVersion] = wf.Hash
	}
	for k, v := range opt.Attributes {
		if _, set := attrs[k]; !set {
			attrs[k] = v
		}
	}
	e.root = host.StartSpan(trace.KindInvokeWorkflow, "invoke_workflow "+wf.Name, "", attrs)
	if wf.Timeout > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, wf.Timeout, fmt.Errorf("workflow timeout %s reached", wf.Timeout))
		defer stop()
	}
	ctx, e.abort = context.WithCancelCause(ctx)
	defer e.abort(nil)
	var wg sync.WaitGroup
	for i := range wf.Steps {
		wg.Go(func() { e.runStep(ctx, i) })
	}
	wg.Wait()
	res := e.result(ctx, start)
	e.root.End(traceStatus(res.Status), res.Error, map[string]any{"workflow_status": res.Status, semconv.AttrResult: Text(res.Final)})
	return res
}

func (e *engine) warn(format string, a ...any) {
	e.wmu.Lock()
	e.warnings = append(e.warnings, fmt.Sprintf(format, a...))
	e.wmu.Unlock()
}

// render evaluates t against the outputs so far.
func (e *engine) render(t *Template, s *Step) string {
	e.mu.RLock()
	out, warns := t.Render(e.env)
	e.mu.RUnlock()
	for _, w := range warns {
		e.warn("step %s: template %s rendered empty", s.ID, w)
	}
	return out
}

// store keeps a step's output where templates find it.
func (e *engine) store(s *Step, output any, outputs map[string]any) {
	e.mu.Lock()
	entry := map[string]any{"output": output}
	if outputs != nil {
		entry["outputs"] = outputs
	}
	e.steps[s.ID] = entry
	if s.Output.StoreAs != "" {
		e.env[s.Output.StoreAs] = output
	}
	e.mu.Unlock()
}

// runStep waits for the step's dependencies, then runs it.
func (e *engine) runStep(ctx context.Context, i int) {
	s := e.wf.Steps[i]
	defer close(e.done[i])
	for _, d := range s.deps {
		select {
		case <-e.done[d]:
		case <-ctx.Done():
		}
	}
	r := &StepResult{ID: s.ID, Type: s.Type, Agent: stepAgent(s)}
	e.results[i] = r
	if e.passOver(ctx, s, r) {
		return
	}
	if e.opt.OnStep != nil {
		e.opt.OnStep(s, "running", r)
	}
	start := time.Now()
	sp := e.host.StartSpan(trace.KindWorkflowStep, "step "+s.ID, e.root.ID(),
		map[string]any{"step_id": s.ID, "step_type": s.Type, "agent": r.Agent, "depends_on": e.wf.Deps(s)})
	sctx := ctx
	if s.Timeout > 0 {
		var stop context.CancelFunc
		sctx, stop = context.WithTimeoutCause(ctx, s.Timeout, fmt.Errorf("step %s timed out after %s", s.ID, s.Timeout))
		defer stop()
	}
	st := &stepRun{e: e, s: s, r: r, span: sp, attrs: map[string]any{}}
	st.run(sctx)
	r.Duration = time.Since(start)
	e.settle(ctx, s, r)
	st.end()
	if e.opt.OnStep != nil {
		e.opt.OnStep(s, r.Status, r)
	}
}

// passOver ends a step that is not to run, and reports whether it did: one
// its condition did not choose is skipped with a null output, and once the
// run has ended (cancelled, timed out, aborted) the rest end with it.
func (e *engine) passOver(ctx context.Context, s *Step, r *StepResult) bool {
	switch {
	case s.gate >= 0 && e.routes[s.gate] != s.ID && ctx.Err() == nil:
		r.Status, r.routed = StepSkipped, true
		r.Notes = append(r.Notes, "not chosen by condition "+e.wf.Steps[s.gate].ID)
		e.store(s, nil, nil)
	case ctx.Err() != nil:
		r.Status = ctxStatus(ctx)
		r.Error = context.Cause(ctx).Error()
	default:
		return false
	}
	e.endlessSpan(s, r)
	return true
}

// settle applies what a step that did not succeed means for the run (ctx):
// a step that ran out of its own time is skipped with a null output when
// its agent's on_failure says skip, else it aborts the run, as an error
// does; a failed step's output is null.
func (e *engine) settle(ctx context.Context, s *Step, r *StepResult) {
	if (r.Status == StepTimeout || r.Status == StepCancelled) && ctx.Err() == nil {
		// The step's own timeout: its agent's failure policy decides.
		if a := e.wf.Agents[s.Agent]; a != nil && a.OnFailure == "skip" {
			r.Notes = append(r.Notes, "step "+r.Status+" ("+r.Error+"); skipped, output null")
			r.Status = StepSkipped
			e.store(s, nil, nil)
		} else {
			e.abort(fmt.Errorf("%w at step %s: %s %s", errAbort, s.ID, r.Status, r.Error))
		}
	}
	if r.Status == StepError && ctx.Err() == nil {
		e.abort(fmt.Errorf("%w at step %s: %s", errAbort, s.ID, r.Error))
	}
	if r.Status == StepError || r.Status == StepTimeout || r.Status == StepCancelled {
		e.store(s, nil, nil)
	}
}

// end measures the step's output and ends its span with its status,
// attempts, output and notes.
func (st *stepRun) end() {
	r := st.r
	out := Text(r.Output)
	r.Size = len(out)
	st.attrs["step_status"] = r.Status
	st.attrs["attempts"] = r.Attempts
	st.attrs["output_size"] = r.Size
	st.attrs[semconv.AttrResult] = out
	if len(r.Notes) > 0 {
		st.attrs["notes"] = r.Notes
	}
	st.span.End(spanStatus(r.Status), r.Error, st.attrs)
}

// endlessSpan records a step that never ran (skipped by routing, cancelled
// by an abort) as a span of no length, so the timeline shows it.
func (e *engine) endlessSpan(s *Step, r *StepResult) {
	sp := e.host.StartSpan(trace.KindWorkflowStep, "step "+s.ID, e.root.ID(),
		map[string]any{"step_id": s.ID, "step_type": s.Type, "agent": r.Agent})
	sp.End(spanStatus(r.Status), r.Error, map[string]any{"step_status": r.Status, "attempts": 0, "notes": r.Notes})
	if e.opt.OnStep != nil {
		e.opt.OnStep(s, r.Status, r)
	}
}

func spanStatus(s string) trace.Status {
	switch s {
	case StepOK, StepFallback, StepMaxIterations:
		return trace.StatusOK
	case StepSkipped:
		return trace.StatusSkipped
	case StepCancelled:
		return trace.StatusCancelled
	case StepTimeout:
		return trace.StatusTimeout
	}
	return trace.StatusError
}

func ctxStatus(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return StepTimeout
	}
	return StepCancelled
}

func stepAgent(s *Step) string {
	switch {
	case s.Agent != "":
		return s.Agent
	case s.Loop != nil:
		return s.Loop.Agent + " ⟲ " + s.Loop.Validator
	case s.Condition != nil:
		return "gate → " + orNothing(s.Condition.True) + " | " + orNothing(s.Condition.False)
	case s.Map != nil:
		if s.Map.Reduce != "" {
			return s.Map.Agent + " → " + s.Map.Reduce
		}
		return s.Map.Agent
	case len(s.Parallel) > 0:
		names := make([]string, len(s.Parallel))
		for i, b := range s.Parallel {
			names[i] = b.Agent
		}
		return strings.Join(names, ", ")
	}
	return ""
}

// outputKey is where a step's output goes in Result.Outputs: its store_as
// name, else its id.
func outputKey(s *Step) string {
	if s.Output.StoreAs != "" {
		return s.Output.StoreAs
	}
	return s.ID
}

// result gathers the run's outcome once every step has ended.
func (e *engine) result(ctx context.Context, start time.Time) *Result {
	res := &Result{Workflow: e.wf.Name, Status: StatusOK, Outputs: map[string]any{}, Steps: e.results,
		Duration: time.Since(start)}
	partial, stopped := false, ""
	for i, r := range e.results {
		s := e.wf.Steps[i]
		switch r.Status {
		case StepOK, StepFallback, StepMaxIterations:
			res.Outputs[outputKey(s)] = r.Output
			res.Final = r.Output
			partial = partial || r.Status == StepMaxIterations || r.partial
		case StepSkipped:
			partial = partial || !r.routed
			if !r.routed { // skipped by on_failure: skip, whose output is null (seed 000)
				res.Outputs[outputKey(s)] = nil
			}
		case StepError:
			if res.Status == StatusOK {
				res.Status, res.Error = StatusError, fmt.Sprintf("step %s: %s", s.ID, r.Error)
			}
		case StepTimeout, StepCancelled:
			if stopped == "" {
				stopped = fmt.Sprintf("step %s: %s %s", s.ID, r.Status, r.Error)
			}
		}
	}
	cause := context.Cause(ctx)
	switch {
	case res.Status == StatusError:
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.Status, res.Error = StatusTimeout, cause.Error()
	case ctx.Err() != nil && (errors.Is(cause, delegation.ErrCancelled) || errors.Is(cause, context.Canceled)):
		res.Status, res.Error = StatusCancelled, cause.Error()
	case ctx.Err() != nil && !errors.Is(cause, errAbort):
		res.Status, res.Error = StatusError, cause.Error() // a token budget, for one
	case stopped != "":
		res.Status, res.Error = StatusError, stopped
	case partial:
		res.Status = StatusPartial
	}
	e.wmu.Lock()
	res.Warnings = append(res.Warnings, e.warnings...)
	e.wmu.Unlock()
	return res
}

// stepRun is one step being run.
type stepRun struct {
	e     *engine
	s     *Step
	r     *StepResult
	span  Span
	attrs map[string]any
	amu   sync.Mutex
}

func (st *stepRun) note(format string, a ...any) {
	st.amu.Lock()
	st.r.Notes = append(st.r.Notes, fmt.Sprintf(format, a...))
	st.amu.Unlock()
}

func (st *stepRun) run(ctx context.Context) {
	switch st.s.Type {
	case TypeParallel:
		st.parallel(ctx)
	case TypeConditional:
		st.conditional(ctx)
	case TypeLoop:
		st.loop(ctx)
	case TypeMap:
		st.mapReduce(ctx)
	default:
		st.callAndStore(ctx, st.s.Agent, st.input(), "")
	}
}

// input is the step's rendered input: its template, or every earlier
// step's output for "all prior context".
func (st *stepRun) input() string {
	if st.s.AllPrior {
		var b strings.Builder
		st.e.mu.RLock()
		for _, prev := range st.e.wf.Steps[:st.s.index] {
			if entry, ok := st.e.steps[prev.ID].(map[string]any); ok && entry["output"] != nil {
				fmt.Fprintf(&b, "## %s\n%s\n\n", prev.ID, Text(entry["output"]))
			}
		}
		st.e.mu.RUnlock()
		return strings.TrimSpace(b.String())
	}
	if st.s.Input == nil {
		return ""
	}
	return st.e.render(st.s.Input, st.s)
}

// callAndStore makes one agent call the step's outcome, and keeps its
// output for later steps unless the call failed.
func (st *stepRun) callAndStore(ctx context.Context, id, input, extra string) {
	st.finish(st.call(ctx, id, input, extra))
	if st.r.Status != StepError {
		st.e.store(st.s, st.r.Output, nil)
	}
}

// finish copies an agent call's outcome onto the step result.
func (st *stepRun) finish(c callResult) {
	st.r.Status, st.r.Output, st.r.Error = c.status, c.value, c.err
	if len(c.verdicts) > 0 {
		st.amu.Lock()
		st.attrs["validation"] = c.verdicts
		st.amu.Unlock()
	}
}

// setAttr sets a step span attribute.
func (st *stepRun) setAttr(k string, v any) {
	st.amu.Lock()
	st.attrs[k] = v
	st.amu.Unlock()
}

// traceStatus is the status a workflow run's trace records for its status:
// ok and partial are both ok (some steps were skipped, by design).
func traceStatus(status string) trace.Status {
	switch status {
	case StatusError:
		return trace.StatusError
	case StatusTimeout:
		return trace.StatusTimeout
	case StatusCancelled:
		return trace.StatusCancelled
	}
	return trace.StatusOK
}
