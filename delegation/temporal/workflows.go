package temporal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/loop"
	flow "github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// WorkflowRunName is the Temporal workflow of a YAML workflow's run.
const WorkflowRunName = "agentry.WorkflowRun"

// defaultFlowLimit bounds a workflow run without a timeout of its own.
const defaultFlowLimit = 24 * time.Hour

// WorkflowRunInput starts a run of a YAML workflow: the file's text travels
// with the run, so every worker plays the file the run was started with.
type WorkflowRunInput struct {
	Run     trace.Run // ID and StartedAt set by the client
	File    string
	Source  []byte
	Inputs  map[string]any // resolved by the client; resolved again on the worker (JSON turns numbers to floats)
	Model   string
	Timeout time.Duration      // the workflow's own timeout (0 = none)
	Caps    delegation.RunCaps // the worker's run-wide caps, set by WorkflowRunWorkflow (workflows_caps.go)
	// Attributes go on the run's root span (flow.Options.Attributes): who
	// asked, and the caller's traceparent.
	Attributes map[string]any `json:",omitempty"`
	// Lost, set by the workflow when the run's last PlayWorkflow attempt
	// was lost with its worker (killed), says how (the server's timeout):
	// PlayWorkflow then plays the run once more only to end it (lostRun).
	Lost string `json:",omitempty"`
	// Stopped says the attempt was lost under the run's stop (its
	// cancel, token_budget spent), which the run then ends with.
	Stopped bool `json:",omitempty"`
	// Going, set with Lost, are the invocations the lost attempt's last
	// heartbeat named as started and not known ended (flowBeat), which
	// the play cancels even when the server cannot list them (cancelGoing).
	Going []string `json:",omitempty"`
}

// WorkflowRunResult is how a workflow run ended, with its Markdown report
// (made on the worker: the report reads the step results' unexported parts).
type WorkflowRunResult struct {
	Result *flow.Result
	Report string
}

// WorkflowRunWorkflow plays a YAML workflow: one PlayWorkflow activity runs
// the workflow engine, and each agent the engine invokes is an
// agentry.Invocation workflow that the activity starts (see FlowActivities).
// Cancelling this workflow cancels the activity, which cancels the
// invocations going and records the run cancelled.
func WorkflowRunWorkflow(ctx workflow.Context, in WorkflowRunInput) (WorkflowRunResult, error) {
	limit := defaultFlowLimit
	if in.Timeout > 0 {
		limit = in.Timeout + time.Minute // the engine's own timer ends the run first
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: limit,
		HeartbeatTimeout: heartbeatTimeout, RetryPolicy: lostWorker, WaitForCancellation: true})
	actx, stopPlay := workflow.WithCancel(actx)
	var book *rootLedger
	if workflow.GetVersion(ctx, "flow-caps", workflow.DefaultVersion, 1) == 1 { // a run started before: no caps
		caps, b, err := startFlowLedger(ctx, in.Run.ID, func() { stopPlay() })
		if err != nil {
			return WorkflowRunResult{Result: &flow.Result{RunID: in.Run.ID, Status: flow.StatusError, Error: message(err)}}, nil
		}
		in.Caps, book = caps, b
	}
	var r WorkflowRunResult
	err := workflow.ExecuteActivity(actx, fa.PlayWorkflow, in).Get(ctx, &r)
	// An attempt lost with its worker, after which no retry follows (the
	// last, or one under the run's stop), ended nothing: PlayWorkflow plays
	// the run once more only to end it (lostRun). A history from before
	// them ends the run with the timeout, its record left running.
	var beat flowBeat
	if why, stopped, ok := lossIn(actx, err, &beat); ok && !stopped && workflow.GetVersion(ctx, "flow-lost", workflow.DefaultVersion, 1) == 1 {
		in.Lost, in.Going = why, beat.Going
		err = workflow.ExecuteActivity(actx, fa.PlayWorkflow, in).Get(ctx, &r)
	}
	if why, stopped, ok := lossIn(actx, err, &beat); ok && stopped && workflow.GetVersion(ctx, "flow-cancel-lost", workflow.DefaultVersion, 1) == 1 {
		in.Lost, in.Stopped, in.Going = why, true, beat.Going
		dctx, _ := workflow.NewDisconnectedContext(actx) // the stop is the play's to carry out, not to end it
		err = workflow.ExecuteActivity(dctx, fa.PlayWorkflow, in).Get(ctx, &r)
	}
	if err != nil && r.Result == nil {
		status, why := flow.StatusError, message(err)
		switch {
		case ctx.Err() != nil:
			status = flow.StatusCancelled
		case book != nil && book.over != "":
			why = book.over
		}
		r.Result = &flow.Result{RunID: in.Run.ID, Status: status, Error: why}
	}
	return r, nil
}

var fa *FlowActivities // method values name the activities in workflow code

// FlowActivities run YAML workflows on a worker. The engine of
// delegation/workflow runs inside one activity (its steps, conditions,
// loops and maps are Go code with goroutines and timers, not workflow
// code); what makes it durable is that every agent it invokes is a
// workflow of its own whose ID depends only on the run, the step span, the
// agent, its task and how many times that same call came before. When a
// worker dies, the activity is retried on another: the engine plays the
// workflow again from the top, and each invocation that already ran (or
// is running) is found by its ID and its result read, not run again.
type FlowActivities struct {
	Steps *delegation.Steps
	Flush func(context.Context) error
	Beat  time.Duration
}

// PlayWorkflow runs the workflow engine on in and records the run.
func (a *FlowActivities) PlayWorkflow(ctx context.Context, in WorkflowRunInput) (WorkflowRunResult, error) {
	going := newGoing(in.Going, earlierGoing(ctx))
	defer (&Activities{Beat: a.Beat}).beatWith(ctx, going.beat)()
	run := in.Run
	task, _ := json.Marshal(in.Inputs)
	run.Task, run.Model, run.Status = string(task), in.Model, trace.StatusRunning
	wf, probs := flow.Parse(in.File, in.Source, func(name string) bool { _, ok := a.Steps.Agent(name); return ok })
	if wf == nil {
		return a.end(ctx, run, &flow.Result{RunID: run.ID, Status: flow.StatusError, Error: probs.Error()}, "")
	}
	run.Agent = wf.Name
	inputs, err := flow.ResolveInputs(wf, in.Inputs)
	if err != nil {
		return a.end(ctx, run, &flow.Result{RunID: run.ID, Workflow: wf.Name, Status: flow.StatusError, Error: err.Error()}, "")
	}
	a.Steps.RecordRun(run)
	if err := a.flush(ctx); err != nil {
		return WorkflowRunResult{}, err
	}
	h := &durableHost{a: a, actx: ctx, c: activity.GetClient(ctx), queue: activity.GetInfo(ctx).TaskQueue,
		runID: run.ID, model: in.Model, caps: in.Caps, seen: map[string]int{}, going: going}
	h.lost = h.lostRun(in)
	// The activity's context ends with Temporal's own error; the engine
	// reads a run's cancellation from delegation.ErrCancelled.
	ectx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancel(nil)
	h.abort = cancel
	defer context.AfterFunc(ctx, func() { cancel(h.endCause(ctx)) })()
	res := flow.Execute(ectx, h, wf, flow.Options{Inputs: inputs, Attributes: in.Attributes})
	res.RunID = run.ID
	if ctx.Err() != nil && leftToRetry(ctx) {
		// This attempt ended, not the run (its worker stops, it was timed
		// out, paused or reset): leave the run and its agents going for
		// the attempt that retries this activity.
		return WorkflowRunResult{}, fmt.Errorf("the run is left to the activity's retry: %w", context.Cause(ctx))
	}
	if ectx.Err() != nil { // the run stopped (cancelled, lost, its budget spent): so do its agents
		h.cancelGoing(ctx)
	}
	run.Agents, run.InputTokens, run.OutputTokens = h.tally.Agents, h.tally.InputTokens, h.tally.OutputTokens
	return a.end(ctx, run, res, flow.Report(wf, res))
}

// end records the run's final state as workflow.Start does.
func (a *FlowActivities) end(ctx context.Context, run trace.Run, res *flow.Result, report string) (WorkflowRunResult, error) {
	run.Status = trace.StatusOK
	switch res.Status {
	case flow.StatusError:
		run.Status = trace.StatusError
	case flow.StatusTimeout:
		run.Status = trace.StatusTimeout
	case flow.StatusCancelled:
		run.Status = trace.StatusCancelled
	}
	run.Result, run.Error, run.EndedAt = flow.Text(res.Final), res.Error, time.Now().UTC()
	a.Steps.RecordRun(run)
	return WorkflowRunResult{Result: res, Report: report}, a.flush(ctx)
}

func (a *FlowActivities) flush(ctx context.Context) error {
	if a.Flush == nil {
		return nil
	}
	return a.Flush(context.WithoutCancel(ctx))
}

// durableHost is the workflow engine's host on a worker (flow.Host): spans
// whose IDs depend on what they are, and invocations that are workflows.
type durableHost struct {
	a            *FlowActivities
	actx         context.Context // the activity's: how it ends decides what the agents do (leftToRetry)
	c            client.Client
	queue        string
	runID, model string
	caps         delegation.RunCaps
	abort        context.CancelCauseFunc // stops the engine (workflows_caps.go)
	lost         error                   // the run is played only to end it (lostRun)
	going        *going                  // its invocations started and not known ended (cancelGoing)

	mu    sync.Mutex
	seen  map[string]int // how many times each call came before: its place, stable on a replay
	tally Tally
}

// key names the n-th occurrence of parts. Parallel branches and map
// elements call at once, so the order of two identical calls may differ
// on a replay; identical calls have identical results, so it does not matter.
func (h *durableHost) key(parts ...string) delegation.Key {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	base := hex.EncodeToString(sum[:8])
	h.mu.Lock()
	h.seen[base]++
	n := h.seen[base]
	h.mu.Unlock()
	return delegation.Key(fmt.Sprintf("%s/%s/%d", h.runID, base, n))
}

func (h *durableHost) Agent(name string) (registry.Agent, bool) { return h.a.Steps.Agent(name) }

func (h *durableHost) StartSpan(kind trace.Kind, name, parent string, attrs map[string]any) flow.Span {
	key := h.key("span", string(kind), name, parent)
	return flow.Locked(h.a.Steps.StartSpan(key, h.runID, kind, name, parent, attrs))
}

// Invoke runs agent on task as an agentry.Invocation workflow, or reads
// the result of the one a previous attempt of this activity started.
func (h *durableHost) Invoke(ctx context.Context, parent string, agent registry.Agent, task string) loop.Outcome {
	key := h.key("invoke", parent, agent.Name, task)
	sum := sha256.Sum256([]byte(key))
	id := h.runID + "-w" + hex.EncodeToString(sum[:8])
	if err := h.start(ctx, key, id, parent, agent, task); err != nil {
		if errors.Is(err, errNotStarted) { // as the in-process engine's step that did not start
			return loop.Outcome{Status: trace.StatusCancelled, Error: context.Cause(ctx).Error()}
		}
		if ctx.Err() != nil {
			return stopped(ctx)
		}
		return loop.Outcome{Status: trace.StatusError, Error: err.Error()}
	}
	h.going.add(id)
	var r InvocationResult
	var err, going error
	if h.lost == nil {
		err = h.c.GetWorkflow(ctx, id, "").Get(ctx, &r)
	}
	if (ctx.Err() != nil || h.lost != nil) && !leftToRetry(h.actx) { // the run is cancelled (or lost): so is the invocation, which closes its spans first
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		going = h.c.CancelWorkflow(cctx, id, "") // nil: it was going; one that ended keeps its end
		err = h.c.GetWorkflow(cctx, id, "").Get(cctx, &r)
		cancel()
	}
	if ended(err) {
		h.going.done(id)
	}
	if h.lost != nil && going == nil { // cancelled here: the run ends with it
		h.endLost()
		return stopped(ctx)
	}
	if temporal.IsCanceledError(err) { // it closed its spans before it ended cancelled
		return stopped(ctx)
	}
	if err != nil {
		return loop.Outcome{Status: trace.StatusError, Error: message(err)}
	}
	h.mu.Lock()
	h.tally.Agents++
	h.tally.add(r.Tally)
	h.mu.Unlock()
	h.checkBudget()
	return r.Outcome
}

// start opens the invocation and starts its workflow, unless a previous
// attempt did: opening it again would write its span back to running.
func (h *durableHost) start(ctx context.Context, key delegation.Key, id, parent string, agent registry.Agent, task string) error {
	_, err := h.c.DescribeWorkflowExecution(ctx, id, "")
	if err == nil {
		return nil
	}
	if !errors.As(err, new(*serviceerror.NotFound)) {
		return err
	}
	if h.lost != nil { // the lost attempt had not started it: nothing is
		h.endLost()
		return h.lost
	}
	if err := h.reserve(ctx, id, agent.Name); err != nil {
		return err
	}
	f, err := h.a.Steps.Open(ctx, key, h.runID, h.model, parent, agent, task)
	if err != nil {
		return err
	}
	if err := h.a.flush(ctx); err != nil {
		return err
	}
	_, err = h.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: h.queue,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE}, InvocationWorkflowName, f)
	if errors.As(err, new(*serviceerror.WorkflowExecutionAlreadyStarted)) {
		return nil
	}
	return err
}

// leftToRetry says PlayWorkflow's context (ctx, the activity's) ended as
// this attempt ends but not the run, for another reason than the
// workflow's cancel (handOver: its worker stops, the server timed it out,
// it was paused or reset), and a retry of the activity takes the run on,
// so its agents are left going: not on the last attempt (finalAttempt),
// which ends them as a cancel does (endCause).
func leftToRetry(ctx context.Context) bool {
	return handOver(ctx) && !finalAttempt(activity.GetInfo(ctx))
}

// endCause is why PlayWorkflow's engine stops when the activity's context
// (ctx) ends: on the last attempt, ended for another reason than the
// workflow's cancel, that loss; else stopCause.
func (h *durableHost) endCause(ctx context.Context) error {
	if info := activity.GetInfo(ctx); finalAttempt(info) && handOver(ctx) {
		return lastAttemptLost(info, "its agents are cancelled", context.Cause(ctx))
	}
	return h.stopCause()
}

// lostRun is the cause of a run whose PlayWorkflow attempt was lost with
// its worker, no retry following (WorkflowRunInput.Lost), nil when it
// was not: on the last attempt, the loss; under the run's stop, the stop
// (stopCause), saying the worker was lost. The workflow then runs
// PlayWorkflow once more, on the same IDs: the invocations the lost
// attempt had started are cancelled (one that ended is read back), none
// is started, and the engine stops with that cause once it meets one
// going or unstarted (endLost), so the run is recorded error (or as its
// stop), as the attempt would have had its worker lived (endCause).
func (h *durableHost) lostRun(in WorkflowRunInput) error {
	const ends = "its agents are cancelled"
	switch {
	case in.Lost == "":
		return nil
	case in.Stopped:
		return fmt.Errorf("%w, so %s; its worker was lost: %s", h.stopCause(), ends, in.Lost)
	}
	return lostForGood("", ends, errors.New(in.Lost))
}

// endLost stops the engine of a run played only to end it (lostRun).
func (h *durableHost) endLost() {
	if h.lost != nil {
		h.abort(h.lost)
	}
}

// registerFlows puts the workflow runs' workflow and activity on w.
func registerFlows(w interface {
	RegisterWorkflowWithOptions(any, workflow.RegisterOptions)
	RegisterActivity(any)
}, acts *Activities) {
	w.RegisterWorkflowWithOptions(WorkflowRunWorkflow, workflow.RegisterOptions{Name: WorkflowRunName})
	w.RegisterActivity(&FlowActivities{Steps: acts.Steps, Flush: acts.Flush, Beat: acts.Beat})
}
