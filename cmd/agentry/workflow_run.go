package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/delegation/progress"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry"
)

// workflowRunOptions are `agentry workflow run`'s flags.
type workflowRunOptions struct {
	inputs     []string // --input NAME=VALUE
	inputsFile string
	model      string
	asJSON     bool
	reportFile string
	dryRun     bool
}

// workflowRunCommand is `agentry workflow run NAME|FILE`: every step an
// agent invocation of one runtime, the run recorded like any other.
// Exit 0 for ok and partial (DESIGN §8).
func (s *session) workflowRunCommand() *cobra.Command {
	var o workflowRunOptions
	cmd := &cobra.Command{
		Use:               "run NAME|FILE",
		Short:             "run a workflow, printing each step and then its report",
		Args:              oneArg("needs one NAME or FILE"),
		ValidArgsFunction: firstArg(s.listWorkflows),
		RunE:              func(cmd *cobra.Command, args []string) error { return s.runWorkflow(cmd, args[0], &o) },
	}
	fs := cmd.Flags()
	fs.StringArrayVar(&o.inputs, "input", nil, "an input as `NAME=VALUE` (repeatable)")
	fs.StringVar(&o.inputsFile, "inputs", "", "a JSON object of inputs, in `FILE`")
	modelFlag(fs, &o.model, "workflow")
	jsonFlag(fs, &o.asJSON, "print only {run_id, status, outputs, report}; with --dry-run, {workflow, inputs, plan}")
	fs.StringVar(&o.reportFile, "report", "", "also write the Markdown report to `FILE`")
	fs.BoolVar(&o.dryRun, "dry-run", false, "validate, resolve inputs and print the plan; run nothing, record nothing")
	return cmd
}

// runWorkflow runs the workflow ref names (workflow run, workflow new --run).
func (s *session) runWorkflow(cmd *cobra.Command, ref string, o *workflowRunOptions) error {
	cfg, reg, dir, err := s.workflowSetup(cmd)
	if err != nil {
		return err
	}
	wf, values, err := s.workflowToRun(cfg, reg, dir, ref, o)
	if err != nil {
		return s.refusedWorkflow(err, o.asJSON)
	}
	if o.dryRun {
		if o.asJSON {
			return writeJSON(s.stdout, map[string]any{"workflow": wf.Name, "inputs": values, "plan": workflow.Plan(wf, values)})
		}
		fmt.Fprint(s.stdout, workflow.Plan(wf, values))
		return nil
	}
	store, err := openStore(cfg.DB)
	if err != nil {
		return err
	}
	defer store.Close()
	ctx := cmd.Context()
	s.recordVersions(ctx, store, reg.Snapshot())
	s.recordWorkflowVersions(ctx, store, dir)
	if cfg.Engine == config.EngineTemporal { // workflow_run_temporal.go
		return s.workflowOnTemporal(ctx, cfg, store, wf, values, o)
	}
	ctx, live, err := s.openRuntime(ctx, cfg, reg, runtimeSpec{store: store, asker: s.askElsewhere(cfg), join: true})
	if err != nil {
		return err
	}
	opt := workflow.Options{Inputs: values}
	if !o.asJSON {
		opt.OnStep = func(st *workflow.Step, status string, r *workflow.StepResult) { progress.Step(s.stdout, st.ID, status) }
	}
	res := workflow.Run(ctx, live.rt, wf, o.model, opt)
	s.finishTrace(live.close()) // said; the exit code is the run's
	return s.workflowResult(res, workflow.Report(wf, res), o)
}

// workflowToRun is the workflow ref names with its inputs, or why it
// cannot start: no such workflow, an input missing or wrong, a --model
// that cannot be used here (as for run, nothing is recorded).
func (s *session) workflowToRun(cfg config.Config, reg *registry.Registry, dir, ref string, o *workflowRunOptions) (*workflow.Workflow, map[string]any, error) {
	wf, err := findWorkflow(ref, dir, reg)
	if err != nil {
		return nil, nil, err
	}
	values, err := s.gatherInputs(wf, o.inputs, o.inputsFile)
	if err != nil {
		return nil, nil, err
	}
	if o.model != "" {
		if err := s.checkModel(cfg, o.model); err != nil {
			return nil, nil, err
		}
	}
	return wf, values, nil
}

// refusedWorkflow is a workflow run that never started: with --json, its
// result object says why too, as run's does.
func (s *session) refusedWorkflow(err error, asJSON bool) error {
	if asJSON {
		writeJSON(s.stdout, map[string]any{"run_id": "", "status": workflow.StatusError, "outputs": map[string]any{}, "report": "", "error": err.Error()})
	}
	return err
}

// workflowResult prints a workflow run's end, in-process or on Temporal:
// {run_id, status, outputs, report} with --json (DESIGN §8), else the
// status and the report; --report FILE gets the report too.
func (s *session) workflowResult(res *workflow.Result, report string, o *workflowRunOptions) error {
	if o.reportFile != "" {
		if err := os.WriteFile(o.reportFile, []byte(report), 0o644); err != nil {
			fmt.Fprintf(s.stderr, "agentry: report: %v\n", err)
		}
	}
	if o.asJSON {
		writeJSON(s.stdout, map[string]any{"run_id": res.RunID, "status": res.Status, "outputs": res.Outputs, "report": report})
	} else {
		fmt.Fprintf(s.stdout, "\nrun %s: %s\n\n%s", res.RunID, res.Status, report)
	}
	if res.Status == workflow.StatusOK || res.Status == workflow.StatusPartial {
		return nil
	}
	return exitCode(1)
}

// gatherInputs merges --inputs FILE and --input k=v (the latter wins), then
// asks for missing required inputs on a terminal, or refuses naming them.
func (s *session) gatherInputs(wf *workflow.Workflow, given []string, file string) (map[string]any, error) {
	vals := map[string]any{}
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(data, &vals); err != nil {
			return nil, fmt.Errorf("--inputs %s: not a JSON object: %v", file, err)
		}
	}
	for _, kv := range given {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--input %q: want NAME=VALUE", kv)
		}
		vals[k] = v
	}
	for {
		out, err := workflow.ResolveInputs(wf, vals)
		var missing *workflow.MissingInputError
		if !errors.As(err, &missing) {
			return out, err
		}
		if !s.interactive() {
			return nil, fmt.Errorf("%w (give it with --input NAME=VALUE or --inputs FILE.json; nothing was run)", err)
		}
		in := bufio.NewReader(s.stdin)
		for _, name := range missing.Names {
			fmt.Fprintf(s.stdout, "%s (%s): ", name, describe(wf, name))
			line, rerr := in.ReadString('\n')
			if line = strings.TrimSpace(line); line == "" && rerr != nil {
				return nil, fmt.Errorf("%w: no answer given", err)
			}
			vals[name] = line
		}
	}
}

func describe(wf *workflow.Workflow, name string) string {
	for _, in := range wf.Inputs {
		if in.Name == name {
			if in.Description != "" {
				return in.Type + ", " + in.Description
			}
			return in.Type
		}
	}
	return ""
}
