package core

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agentry/agentry/delegation/progress"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
)

// Outcome is how a run an outside tool asked for ended, in the shape of
// the delegate tool's result (DESIGN §5) with the run's ID: an MCP tool
// call's structuredContent, an A2A task's data part, the API's answer.
type Outcome struct {
	Status     trace.Status `json:"status"`
	Agent      string       `json:"agent"`
	Result     string       `json:"result"`
	DurationMS int64        `json:"duration_ms"`
	Error      string       `json:"error"`
	RunID      string       `json:"run_id"`
}

// OK reports whether the run ended ok.
func (o Outcome) OK() bool { return o.Status == trace.StatusOK }

// outcomeOf is the outcome of a stored run; the duration is the run's own
// (its end minus its start), zero while it goes.
func outcomeOf(run trace.Run) Outcome {
	o := Outcome{Status: run.Status, Agent: run.Agent, Result: run.Result, Error: run.Error, RunID: run.ID}
	if !run.EndedAt.IsZero() {
		o.DurationMS = run.EndedAt.Sub(run.StartedAt).Milliseconds()
	}
	return o
}

// finalWait bounds how long Await waits, after a run's Done, for the store
// to hold its end: a runner that records through a batching recorder (a
// Temporal worker's) writes it a moment later.
const finalWait = 10 * time.Second

// errNotFinal is Await's error for a run whose end never reached the store.
var errNotFinal = errors.New("the run ended but its end was not recorded")

// Await waits for ex to end, or ctx, and returns the run as stored. When
// ctx ends first the run goes on; the caller decides whether to cancel it.
func Await(ctx context.Context, store RunReader, ex Execution) (Outcome, error) {
	select {
	case <-ex.Done():
	case <-ctx.Done():
		return Outcome{}, context.Cause(ctx)
	}
	deadline := time.Now().Add(finalWait)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		run, err := store.Run(context.WithoutCancel(ctx), ex.RunID())
		if err != nil && !errors.Is(err, trace.ErrNotFound) {
			return Outcome{}, err
		}
		if err == nil && run.Status.IsFinal() {
			return outcomeOf(run), nil
		}
		if time.Now().After(deadline) {
			return Outcome{}, fmt.Errorf("run %s: %w", ex.RunID(), errNotFinal)
		}
		time.Sleep(wait)
	}
}

// Follow is how a door waits on a run it started for an outside tool: w
// follows the run (progress lines, asks) while Await waits for its end;
// when ctx ends first (MCP's notifications/cancelled, A2A's tasks/cancel,
// a client gone), the run is cancelled and its cancelled end awaited. It
// returns once w has read the last records.
func Follow(ctx context.Context, store RunReader, ex Execution, w Watcher) (Outcome, error) {
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		w.Watch(ex.RunID(), ex.Done())
	}()
	out, err := Await(ctx, store, ex)
	if ctx.Err() != nil {
		ex.Cancel()
		out, err = Await(context.WithoutCancel(ctx), store, ex)
	}
	<-watched
	return out, err
}

// WorkflowOutcome is how a workflow run an outside tool asked for ended:
// `agentry workflow run --json`'s shape (DESIGN §8: run_id, status,
// outputs, report) with the workflow, its final result as text, why it
// failed and its duration. Status is the workflow's: ok, partial, error,
// timeout or cancelled.
type WorkflowOutcome struct {
	RunID      string         `json:"run_id"`
	Workflow   string         `json:"workflow"`
	Status     string         `json:"status"`
	Outputs    map[string]any `json:"outputs"`
	Report     string         `json:"report"`
	Result     string         `json:"result"`
	Error      string         `json:"error"`
	DurationMS int64          `json:"duration_ms"`
}

// Answer is what a caller is told the workflow answered: its final result,
// its report when it has none.
func (o WorkflowOutcome) Answer() string {
	if o.Result != "" {
		return o.Result
	}
	return o.Report
}

// Ended says which run ended how and why, for a caller told that it did
// not end ok (an MCP tool's error text, an A2A task's failure message).
func Ended(runID, status, why string) string {
	w := "run " + runID + " ended " + status
	if why != "" {
		w += ": " + why
	}
	return w
}

// OK reports whether the run did its work: ok, or partial (a step failed
// under a failure policy that lets the rest go on), as the CLI's exit
// code says.
func (o WorkflowOutcome) OK() bool {
	return o.Status == workflow.StatusOK || o.Status == workflow.StatusPartial
}

// WorkflowResult is a workflow run's Execution that keeps how it ended
// (*workflow.Execution; a Temporal run's, whose report the worker made).
type WorkflowResult interface {
	Result() *workflow.Result
}

// WorkflowReport is a WorkflowResult that carries its own report.
type WorkflowReport interface {
	Report() string
}

// WorkflowOutcomeOf is the outcome of workflow run ex of wf that ended as
// out: the steps' outputs and the report when ex keeps its result, else
// what the store says.
func WorkflowOutcomeOf(wf *workflow.Workflow, ex Execution, out Outcome) WorkflowOutcome {
	o := WorkflowOutcome{RunID: out.RunID, Workflow: wf.Name, Status: string(out.Status), Result: out.Result,
		Error: out.Error, DurationMS: out.DurationMS}
	r, ok := ex.(WorkflowResult)
	if !ok || r.Result() == nil {
		return o
	}
	res := r.Result()
	o.Status, o.Outputs = res.Status, res.Outputs
	if res.Error != "" {
		o.Error = res.Error
	}
	if rep, ok := ex.(WorkflowReport); ok {
		o.Report = rep.Report()
	} else {
		o.Report = workflow.Report(wf, res)
	}
	return o
}

// Watcher follows a run an outside tool is waiting on: its progress lines
// (delegation/progress, as `agentry run` prints them) and the approvals it
// waits for. The zero value of each callback field is no interest in it.
type Watcher struct {
	// Store is where the run's spans are read from; Approvals, when set,
	// where its waiting calls are.
	Store     progress.SpanReader
	Approvals approval.Store
	// Line receives each progress line, without its newline.
	Line func(line string)
	// Asked receives each approval when it starts waiting, once; Answered
	// when it no longer waits (answered here or anywhere else).
	Asked, Answered func(a approval.Approval)
	// Poll is how often approvals are read; 0 means progress.FollowInterval.
	Poll time.Duration
}

// Watch follows run runID until done closes, then returns once the last
// records have been read.
func (w Watcher) Watch(runID string, done <-chan struct{}) {
	var wg sync.WaitGroup
	if w.Line != nil {
		p := &progress.Printer{W: lineWriter(w.Line)}
		wg.Go(func() { p.Tail(w.Store, runID, done) })
	}
	if w.Approvals != nil && (w.Asked != nil || w.Answered != nil) {
		wg.Go(func() { w.approvals(runID, done) })
	}
	wg.Wait()
}

// approvals reads the run's pending approvals every Poll until done closes.
func (w Watcher) approvals(runID string, done <-chan struct{}) {
	poll := w.Poll
	if poll <= 0 {
		poll = progress.FollowInterval
	}
	waiting := map[string]approval.Approval{}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		pending, err := w.Approvals.Approvals(context.Background(), approval.Filter{RunID: runID, Status: approval.Pending})
		if err == nil {
			now := map[string]bool{}
			for _, a := range pending {
				now[a.ID] = true
				if _, seen := waiting[a.ID]; !seen {
					waiting[a.ID] = a
					if w.Asked != nil {
						w.Asked(a)
					}
				}
			}
			for id, a := range waiting {
				if !now[id] {
					delete(waiting, id)
					if w.Answered != nil {
						w.Answered(a)
					}
				}
			}
		}
		select {
		case <-done:
			return
		case <-tick.C:
		}
	}
}

// lineWriter hands each line written to it to f, without the newline.
// progress.Printer writes one line per Write.
type lineWriter func(string)

func (f lineWriter) Write(p []byte) (int, error) {
	s := string(p)
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	if s != "" {
		f(s)
	}
	return len(p), nil
}
