package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/trace"
)

// workflowOnTemporal submits a workflow run and prints its steps from the
// trace store the workers write, then its report, as an in-process run
// does. Ctrl-C cancels the run's workflow and waits for it to end.
func (s *session) workflowOnTemporal(ctx context.Context, cfg Config, store trace.Store, wf *workflow.Workflow, values map[string]any, model string, asJSON bool, reportFile string) int {
	source, err := os.ReadFile(wf.File)
	if err != nil {
		return s.fail(err)
	}
	logger := slog.New(slog.NewTextHandler(s.stderr, &slog.HandlerOptions{Level: slog.LevelWarn, ReplaceAttr: trace.RedactAttr}))
	eng, err := temporal.Dial(ctx, cfg.temporal(), logger)
	if err != nil {
		return s.fail(err)
	}
	defer eng.Close()
	x, err := eng.StartWorkflow(ctx, wf.File, source, values, model, wf.Timeout)
	if err != nil {
		return s.fail(err)
	}
	sig, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	done, tailed := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(tailed)
		if !asJSON {
			tailSteps(store, x.RunID(), s.stdout, done)
		}
	}()
	go func() {
		select {
		case <-sig.Done():
			if ctx.Err() == nil {
				_ = x.Cancel(context.Background())
			}
		case <-done:
		}
	}()
	out, err := x.Wait(ctx)
	close(done)
	<-tailed
	res := out.Result
	if err != nil && res.Error == "" {
		return s.fail(err)
	}
	if reportFile != "" {
		if err := os.WriteFile(reportFile, []byte(out.Report), 0o644); err != nil {
			fmt.Fprintf(s.stderr, "agentry: report: %v\n", err)
		}
	}
	if asJSON {
		enc := json.NewEncoder(s.stdout)
		enc.SetIndent("", "  ")
		enc.Encode(map[string]any{"run_id": res.RunID, "status": res.Status, "outputs": res.Outputs, "report": out.Report})
	} else {
		fmt.Fprintf(s.stdout, "\nrun %s: %s\n\n%s", res.RunID, res.Status, out.Report)
	}
	if res.Status == workflow.StatusOK || res.Status == workflow.StatusPartial {
		return 0
	}
	return 1
}

// tailSteps prints the run's steps as the workers record them, with the
// lines Options.OnStep prints in-process: "running" when a step starts,
// its status when it ends. A step span rewritten by a worker that took
// over the run is printed once.
func tailSteps(store trace.Store, runID string, w io.Writer, done <-chan struct{}) {
	printed := map[string]int{} // span ID → 1 running printed, 2 end printed
	followSpans(store, runID, done, func(sp trace.Span) {
		if sp.Kind != trace.KindWorkflowStep || printed[sp.ID] == 2 {
			return
		}
		id, _ := sp.Attributes["step_id"].(string)
		_, ran := sp.Attributes["depends_on"] // a step that never ran (skipped, aborted) has none
		if printed[sp.ID] == 0 && ran {
			fmt.Fprintf(w, "step %-20s %s\n", id, "running")
			printed[sp.ID] = 1
		}
		// A step the reaper marked interrupted (its worker died) has no
		// step_status: the worker taking over ends it again.
		if st, ended := sp.Attributes["step_status"]; ended && sp.Status.IsFinal() {
			fmt.Fprintf(w, "step %-20s %v\n", id, st)
			printed[sp.ID] = 2
		}
	})
}
