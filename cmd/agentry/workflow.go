package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/web/core"
)

// workflowCommand dispatches `agentry workflow run|validate|explain|new`.
func workflowCommand(ctx context.Context, s *session, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(s.stderr, "usage: agentry workflow run NAME|FILE | validate [DIR|FILE] | explain NAME|FILE | new \"DESCRIPTION\"")
		return 2
	}
	switch args[0] {
	case "run":
		return workflowRun(ctx, s, args[1:])
	case "validate":
		return workflowValidate(s, args[1:])
	case "explain":
		return workflowExplain(s, args[1:])
	case "new":
		return workflowNew(ctx, s, args[1:])
	}
	fmt.Fprintf(s.stderr, "agentry workflow: unknown subcommand %q (run, validate, explain, new)\n", args[0])
	return 2
}

func (s *session) workflowFlags(name string) (*flag.FlagSet, *string) {
	fs := s.flagSet("workflow " + name)
	return fs, fs.String("workflows", "", "workflows folder (default workflows)")
}

// workflowSetup loads the configuration and the registry agents (an absent
// agents folder is no agents: workflows may use inline agents only).
func (s *session) workflowSetup(fs *flag.FlagSet, dirFlag string) (Config, *registry.Registry, string, error) {
	cfg, err := s.loadConfig(fs)
	if err != nil {
		return Config{}, nil, "", err
	}
	dir := cfg.Workflows
	if dirFlag != "" {
		dir = dirFlag
	}
	if dir == "" {
		dir = "workflows"
	}
	reg := registry.New(nil)
	if info, err := os.Stat(cfg.Agents); err == nil && info.IsDir() {
		snap, err := folder.Load(cfg.Agents, registryOptions(cfg)) // refuses links out of the folder
		if err != nil {
			return Config{}, nil, "", fmt.Errorf("load agents: %w", err)
		}
		reg = registry.New(snap)
	}
	return cfg, reg, dir, nil
}

func lookupIn(reg *registry.Registry) workflow.Lookup {
	snap := reg.Snapshot()
	return func(name string) bool { _, ok := snap.Agent(name); return ok }
}

// inputFlags collects repeated --input k=v.
type inputFlags []string

func (f *inputFlags) String() string     { return strings.Join(*f, ",") }
func (f *inputFlags) Set(v string) error { *f = append(*f, v); return nil }

func workflowRun(ctx context.Context, s *session, args []string) int {
	fs, dirFlag := s.workflowFlags("run")
	var given inputFlags
	fs.Var(&given, "input", "an input as NAME=VALUE (repeatable)")
	inputsFile := fs.String("inputs", "", "a JSON object of inputs")
	modelSpec := fs.String("model", "", "model spec for every agent (demo, script:FILE, provider:model)")
	asJSON := fs.Bool("json", false, "print only {run_id, status, outputs, report}")
	reportFile := fs.String("report", "", "also write the Markdown report to FILE")
	dryRun := fs.Bool("dry-run", false, "validate, resolve inputs and print the plan; run nothing, record nothing")
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(rest) != 1 {
		return s.usageError(fs, "want NAME or FILE, got %d arguments", len(rest))
	}
	cfg, reg, dir, err := s.workflowSetup(fs, *dirFlag)
	if err != nil {
		return s.badConfig(err)
	}
	wf, err := findWorkflow(rest[0], dir, reg)
	if err != nil {
		return s.fail(err)
	}
	values, err := s.gatherInputs(wf, given, *inputsFile)
	if err != nil {
		return s.fail(err)
	}
	if *dryRun {
		fmt.Fprint(s.stdout, workflow.Plan(wf, values))
		return 0
	}
	store, err := openStore(cfg.DB)
	if err != nil {
		return s.fail(err)
	}
	defer store.Close()
	if cfg.Engine == EngineTemporal { // workflow_temporal.go
		return s.workflowOnTemporal(ctx, cfg, store, wf, values, *modelSpec, *asJSON, *reportFile)
	}
	logger := slog.New(slog.NewTextHandler(s.stderr, &slog.HandlerOptions{Level: slog.LevelWarn, ReplaceAttr: trace.RedactAttr}))
	rec := trace.NewRecorder(store, trace.RecorderConfig{Logger: logger})
	ctx, sink, otelDone, err := s.withOtel(ctx, cfg, rec, logger, true)
	if err != nil {
		rec.Close(context.Background())
		return s.badConfig(err)
	}
	defer otelDone()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	rt, stopTools, err := s.newRuntime(ctx, cfg, reg, sink, logger)
	if err != nil {
		rec.Close(context.Background())
		return s.fail(err)
	}
	defer stopTools()
	opt := workflow.Options{Inputs: values}
	if !*asJSON {
		opt.OnStep = func(st *workflow.Step, status string, r *workflow.StepResult) {
			fmt.Fprintf(s.stdout, "step %-20s %s\n", st.ID, status)
		}
	}
	res := workflow.Run(ctx, rt, wf, *modelSpec, opt)
	if err := rec.Close(context.Background()); err != nil {
		fmt.Fprintf(s.stderr, "agentry: trace not fully written: %v\n", trace.Redact(err.Error()))
	}
	report := workflow.Report(wf, res)
	if *reportFile != "" {
		if err := os.WriteFile(*reportFile, []byte(report), 0o644); err != nil {
			fmt.Fprintf(s.stderr, "agentry: report: %v\n", err)
		}
	}
	if *asJSON {
		enc := json.NewEncoder(s.stdout)
		enc.SetIndent("", "  ")
		enc.Encode(map[string]any{"run_id": res.RunID, "status": res.Status, "outputs": res.Outputs, "report": report})
	} else {
		fmt.Fprintf(s.stdout, "\nrun %s: %s\n\n%s", res.RunID, res.Status, report)
	}
	if res.Status == workflow.StatusOK || res.Status == workflow.StatusPartial {
		return 0
	}
	return 1
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

// interactive reports whether stdin is a terminal (a character device
// such as /dev/null is not one: it answers the terminal ioctl with an error).
func (s *session) interactive() bool {
	f, ok := s.stdin.(*os.File)
	if !ok {
		return false
	}
	return isTerminal(f)
}

func workflowValidate(s *session, args []string) int {
	fs, dirFlag := s.workflowFlags("validate")
	asJSON := fs.Bool("json", false, "print problems as JSON")
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	_, reg, dir, err := s.workflowSetup(fs, *dirFlag)
	if err != nil {
		return s.badConfig(err)
	}
	target := dir
	if len(rest) > 0 {
		target = rest[0]
	}
	var wfs []*workflow.Workflow
	var probs workflow.Problems
	if info, err := os.Stat(target); err == nil && !info.IsDir() {
		wf, ps := workflow.LoadFile(target, lookupIn(reg))
		probs = ps
		if wf != nil {
			wfs = append(wfs, wf)
		}
	} else if err != nil {
		return s.fail(fmt.Errorf("workflows %q: %v", target, err))
	} else {
		wfs, probs = workflow.LoadDir(target, lookupIn(reg))
	}
	if *asJSON {
		if probs == nil {
			probs = workflow.Problems{}
		}
		enc := json.NewEncoder(s.stdout)
		enc.SetIndent("", "  ")
		enc.Encode(probs)
	} else {
		errs := 0
		for _, p := range probs {
			fmt.Fprintf(s.stdout, "%s %s:%d: %s\n", p.Severity, p.File, p.Line, p.Message)
			if p.Severity == workflow.SeverityError {
				errs++
			}
		}
		fmt.Fprintf(s.stdout, "%s valid: %s, %s\n", core.Count(len(wfs), "workflow"), core.Count(errs, "error"), core.Count(len(probs)-errs, "warning"))
	}
	if probs.HasErrors() {
		return 1
	}
	return 0
}

func workflowExplain(s *session, args []string) int {
	fs, dirFlag := s.workflowFlags("explain")
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(rest) != 1 {
		return s.usageError(fs, "want NAME or FILE")
	}
	_, reg, dir, err := s.workflowSetup(fs, *dirFlag)
	if err != nil {
		return s.badConfig(err)
	}
	wf, err := findWorkflow(rest[0], dir, reg)
	if err != nil {
		return s.fail(err)
	}
	fmt.Fprint(s.stdout, workflow.Explain(wf))
	return 0
}

// workflowNew has the default model write a workflow from a description;
// it is validated and shown, saved only when confirmed, and then, as seed
// 000's "define and run inline" does, run on confirmation (--run: without
// asking).
func workflowNew(ctx context.Context, s *session, args []string) int {
	fs, dirFlag := s.workflowFlags("new")
	modelSpec := fs.String("model", "", "model that writes the workflow (default: models.default); the run uses it too")
	yes := fs.Bool("yes", false, "save without asking")
	runIt := fs.Bool("run", false, "run the saved workflow without asking")
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(rest) == 0 {
		return s.usageError(fs, "want a DESCRIPTION")
	}
	cfg, reg, dir, err := s.workflowSetup(fs, *dirFlag)
	if err != nil {
		return s.badConfig(err)
	}
	spec := cfg.Models.Default
	if *modelSpec != "" {
		spec = *modelSpec
	}
	llm, err := modelProviders(cfg, s.getenv).Resolve(spec, cfg.Models.Aliases)
	if err != nil {
		return s.fail(err)
	}
	desc := strings.Join(rest, " ")
	resp, err := llm.Generate(ctx, &model.Request{Agent: workflow.WriterAgent, Purpose: model.PurposeTurn,
		System: workflow.WriterPrompt, Messages: []model.Message{{Role: model.RoleUser, Content: desc}}})
	if err != nil {
		return s.fail(err)
	}
	text := strings.TrimSpace(workflow.Unfence(resp.Text)) + "\n"
	wf, probs := workflow.Parse("new.yaml", []byte(text), lookupIn(reg))
	fmt.Fprint(s.stdout, text)
	if wf == nil {
		return s.fail(fmt.Errorf("the model's workflow does not validate:\n%v", probs))
	}
	path := filepath.Join(dir, wf.Name+".yaml")
	in := bufio.NewReader(s.stdin) // a terminal hands over one line per read, so later prompts lose nothing
	if !*yes {
		if !s.interactive() {
			fmt.Fprintf(s.stdout, "\nvalid; not saved (give --yes to save as %s)\n", path)
			return 0
		}
		if !s.confirm(in, fmt.Sprintf("\nSave as %s?", path)) {
			fmt.Fprintln(s.stdout, "not saved")
			return 0
		}
	}
	if _, err := os.Stat(path); err == nil {
		return s.fail(fmt.Errorf("%s exists; not overwritten", path))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return s.fail(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return s.fail(err)
	}
	fmt.Fprintf(s.stdout, "saved %s\n", path)
	if !*runIt && (!s.interactive() || !s.confirm(in, "Run it now?")) {
		fmt.Fprintf(s.stdout, "run it with: agentry workflow run %s\n", path)
		return 0
	}
	return workflowRun(ctx, s, runArgs(fs, path))
}

// confirm asks question on the terminal and reports whether the answer is yes.
func (s *session) confirm(in *bufio.Reader, question string) bool {
	fmt.Fprintf(s.stdout, "%s [y/N] ", question)
	line, _ := in.ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}

// runArgs are the arguments of workflow run for the workflow new saved at
// path: the flags new was given that run takes too (--config, --agents,
// --db, --model, --workflows).
func runArgs(fs *flag.FlagSet, path string) []string {
	args := []string{path}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "config", "agents", "db", "model", "workflows":
			args = append(args, "--"+f.Name, f.Value.String())
		}
	})
	return args
}
