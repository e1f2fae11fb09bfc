package main

import (
	"context"
	"os"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/delegation/progress"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/trace"
)

// workflowOnTemporal submits a workflow run and prints its steps from the
// trace store the workers write, then its report, as an in-process run
// does. Ctrl-C cancels the run's workflow and waits for it to end.
func (s *session) workflowOnTemporal(ctx context.Context, cfg config.Config, store trace.Store, wf *workflow.Workflow, values map[string]any, o *workflowRunOptions) error {
	source, err := os.ReadFile(wf.File)
	if err != nil {
		return err
	}
	eng, err := temporal.Dial(ctx, cfg.TemporalEngine(), s.warnLog())
	if err != nil { // no Temporal server to submit to: the run never starts
		return s.refusedWorkflow(err, o.asJSON)
	}
	defer eng.Close()
	x, err := eng.StartWorkflow(ctx, wf.File, source, values, o.model, wf.Timeout, nil)
	if err != nil {
		return err
	}
	var out temporal.WorkflowRunResult
	follow(ctx, x.Cancel, func(done <-chan struct{}) {
		if !o.asJSON {
			progress.TailSteps(store, x.RunID(), s.stdout, done)
		}
	}, func() { out, err = x.Wait(ctx) })
	if err != nil && (out.Result == nil || out.Result.Error == "") {
		return err
	}
	return s.workflowResult(out.Result, out.Report, o)
}
