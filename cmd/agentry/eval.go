package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/cmd/agentry/suggest"
	"github.com/agentry/agentry/delegation/eval"
	"github.com/agentry/agentry/delegation/progress"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/web/core"
)

// evalOptions are `agentry eval`'s flags.
type evalOptions struct {
	asJSON   bool
	against  string
	parallel int
}

// evalCommand runs an evaluation suite's cases and stores the results
// beside their runs; it exits 1 when a case fails (docs/evals.md).
func (s *session) evalCommand() *cobra.Command {
	var o evalOptions
	cmd := &cobra.Command{
		Use:   "eval SUITE",
		Short: "run an evaluation suite's cases and say which pass; exit 1 when one fails",
		Example: `  agentry eval research                         # evals/research.yaml
  agentry eval evals/research.yaml --json       # {suite, passed, failed, cases: [...]}
  agentry eval research --against 3f2a9c1d      # with a stored version of the suite's agent
  agentry eval research --agents ../other/agents`,
		Args:              oneArg("takes one SUITE: a file, or the name of one in the evals folder"),
		ValidArgsFunction: firstArg(s.listSuites),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("agents") && o.against != "" {
				return usage(cmd, "--against and --agents are two ways to say what to run; give one")
			}
			if o.parallel < 1 {
				return usage(cmd, "--parallel must be at least 1")
			}
			if err := checkHashFlag(cmd, "--against", o.against); err != nil {
				return err
			}
			return s.eval(cmd, args[0], &o)
		},
	}
	fs := cmd.Flags()
	jsonFlag(fs, &o.asJSON, "print only {suite, passed, failed, cases: [{name, passed, run_id, failures}]}")
	fs.StringVar(&o.against, "against", "", "run with version `HASH` of the suite's agent (or workflow) instead of its file (agentry history lists them)")
	fs.IntVar(&o.parallel, "parallel", eval.DefaultParallel, "run `N` cases at once")
	addConfigFlags(fs, "agents", "db", "workflows", "evals")
	return cmd
}

func (s *session) eval(cmd *cobra.Command, ref string, o *evalOptions) error {
	cfg, err := s.loadConfig(cmd)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	suite, err := findSuite(ref, cmp.Or(cfg.Evals, "evals"))
	if err != nil {
		return err
	}
	snap, err := folder.Load(cfg.Agents, registryOptions(cfg))
	if err != nil {
		return fmt.Errorf("load agents: %w", err)
	}
	store, err := openStore(cfg.DB)
	if err != nil {
		return err
	}
	defer store.Close()
	label := "current"
	if cmd.Flags().Changed("agents") {
		label = "agents " + cfg.Agents // another folder's files are not the agents' history
	} else {
		s.recordVersions(ctx, store, registry.New(snap).Snapshot())
	}
	wfs := &suiteWorkflows{dir: cmp.Or(cfg.Workflows, "workflows"), reg: registry.New(snap)}
	var version string
	if o.against != "" {
		if snap, wfs.override, version, err = s.againstVersion(ctx, store, suite, snap, o.against); err != nil {
			return err
		}
		wfs.reg = registry.New(snap)
		label = "version " + trace.ShortHash(version)
	}
	return s.runSuite(ctx, cfg, store, suite, wfs, evalRun{label: label, version: version, parallel: o.parallel, asJSON: o.asJSON})
}

// listSuites are the names of the evals folder's suites, which a SUITE
// argument completes from.
func (s *session) listSuites(cmd *cobra.Command) ([]string, error) {
	cfg, err := s.loadConfig(cmd)
	if err != nil {
		return nil, err
	}
	return suiteNames(cmp.Or(cfg.Evals, "evals")), nil
}

// evalRun is how one `agentry eval` runs its suite.
type evalRun struct {
	label, version string
	parallel       int
	asJSON         bool
}

// runSuite runs the suite on a runtime over wfs.reg's agents, stores the
// eval and prints it. Its runs are recorded and exported as run's are
// (recordRuns), and Ctrl-C cancels them: each is recorded cancelled.
func (s *session) runSuite(ctx context.Context, cfg config.Config, store traceDB, suite *eval.Suite, wfs *suiteWorkflows, r evalRun) error {
	// eval builds the runtime from the configuration itself, with the
	// cases' models (eval.Run); the rest is every command's.
	ctx, runs, err := s.recordRuns(ctx, cfg, runtimeSpec{store: store, asker: s.askElsewhere(cfg), join: true})
	if err != nil {
		return err
	}
	dc, stopTools, err := s.runtimeConfig(ctx, cfg, wfs.reg, runs)
	if err != nil {
		runs.close()
		return err
	}
	out := s.stdout
	if r.asJSON {
		out = io.Discard
	}
	fmt.Fprintf(out, "eval %s: %s of %s %s (%s)\n", suite.Name, core.Count(len(suite.Cases), "case"), suite.Kind(), suite.Target(), r.label)
	rep, err := eval.Run(ctx, suite, eval.Options{Runtime: dc, Workflows: wfs.find, Parallel: r.parallel,
		Label: r.label, Version: r.version, OnCase: func(c trace.EvalCase) { printCase(out, c) }})
	stopTools()
	closeErr := s.finishTrace(runs.close())
	if err != nil {
		return err
	}
	if err := store.AddEval(context.WithoutCancel(ctx), rep.Eval, rep.Cases); err != nil {
		fmt.Fprintf(s.stderr, "agentry: warning: the eval's results were not stored: %v\n", trace.Redact(err.Error()))
	}
	if r.asJSON {
		writeJSON(s.stdout, evalJSONOf(rep))
	} else {
		fmt.Fprintf(out, "\n%s: %d passed, %d failed (eval %s)\n", suite.Name, rep.Eval.Passed, rep.Eval.Failed, rep.Eval.ID)
	}
	if rep.Eval.Failed > 0 || closeErr != nil {
		return exitCode(1)
	}
	return nil
}

// evalJSON is what `agentry eval --json` prints (DESIGN §15).
type evalJSON struct {
	Suite   string         `json:"suite"`
	Passed  int            `json:"passed"`
	Failed  int            `json:"failed"`
	Cases   []evalCaseJSON `json:"cases"`
	EvalID  string         `json:"eval_id"`
	Label   string         `json:"label"`
	Version string         `json:"version,omitempty"`
}

type evalCaseJSON struct {
	Name     string   `json:"name"`
	Passed   bool     `json:"passed"`
	RunID    string   `json:"run_id"`
	Failures []string `json:"failures"`
}

func evalJSONOf(rep eval.Report) evalJSON {
	out := evalJSON{Suite: rep.Eval.Suite, Passed: rep.Eval.Passed, Failed: rep.Eval.Failed, EvalID: rep.Eval.ID,
		Label: rep.Eval.Label, Version: rep.Eval.Version, Cases: make([]evalCaseJSON, len(rep.Cases))}
	for i, c := range rep.Cases {
		out.Cases[i] = evalCaseJSON{Name: c.Name, Passed: c.Passed, RunID: c.RunID, Failures: c.Failures}
		if out.Cases[i].Failures == nil {
			out.Cases[i].Failures = []string{}
		}
	}
	return out
}

// printCase prints one case as it ends: a mark, its name and run, and
// each failure on a line of its own.
func printCase(w io.Writer, c trace.EvalCase) {
	mark := "✓"
	if !c.Passed {
		mark = "✗"
	}
	fmt.Fprintf(w, "%s %s  run %s  %d tokens  $%.4f  %s\n", mark, c.Name, c.RunID,
		c.InputTokens+c.OutputTokens, c.CostUSD, c.Duration.Round(time.Millisecond))
	for _, f := range c.Failures {
		fmt.Fprintf(w, "    %s\n", progress.OneLine(f, 300))
	}
}

// findSuite reads SUITE: a file, or the name of a suite in the evals folder.
func findSuite(ref, dir string) (*eval.Suite, error) {
	if info, err := os.Stat(ref); err == nil && !info.IsDir() {
		return eval.Load(ref)
	}
	for _, ext := range []string{".yaml", ".yml"} {
		p := filepath.Join(dir, ref+ext)
		if _, err := os.Stat(p); err == nil {
			return eval.Load(p)
		}
	}
	return nil, fmt.Errorf("no eval suite %q: not a file, and not in %s%s", ref, dir, suggest.DidYouMean(ref, suiteNames(dir), ""))
}

// suiteNames are the names of the suites in folder dir.
func suiteNames(dir string) []string {
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if eval.IsFile(e.Name()) {
			names = append(names, eval.SuiteName(e.Name()))
		}
	}
	return names
}

// againstVersion replaces the suite's target in snap (an agent) or for
// wfs (a workflow) with its stored version hash.
func (s *session) againstVersion(ctx context.Context, vs trace.VersionStore, suite *eval.Suite, snap *registry.Snapshot, hash string) (*registry.Snapshot, *workflow.Workflow, string, error) {
	kind := registry.KindAgent
	if suite.Workflow != "" {
		kind = registry.KindWorkflow
	}
	v, err := vs.Version(ctx, kind, suite.Target(), hash)
	if err != nil {
		return nil, nil, "", fmt.Errorf("--against: %w", err)
	}
	if kind == registry.KindWorkflow {
		wf, probs := workflow.Parse(v.Path, v.Content, lookupIn(registry.New(snap)))
		if wf == nil {
			return nil, nil, "", fmt.Errorf("--against: version %s of %s does not load: %w", trace.ShortHash(v.Hash), suite.Workflow, problemsText(probs))
		}
		return snap, wf, v.Hash, nil
	}
	next, err := withVersion(snap, suite.Agent, v)
	return next, nil, v.Hash, err
}

// withVersion is snap with agent's file holding version v's content.
func withVersion(snap *registry.Snapshot, agent string, v trace.Version) (*registry.Snapshot, error) {
	path := v.Path
	if a, ok := snap.Agent(agent); ok {
		path = a.File
	}
	next := snap.Apply(registry.Change{Path: path, Data: v.Content})
	if a, ok := next.Agent(agent); !ok || a.Version != v.Hash {
		return nil, fmt.Errorf("version %s of %s does not load: %s", trace.ShortHash(v.Hash), agent, strings.Join(problemLines(next, path), "; "))
	}
	return next, nil
}

func problemLines(snap *registry.Snapshot, path string) []string {
	f, _ := snap.File(path)
	var out []string
	for _, p := range f.Problems {
		if p.Severity == registry.SeverityError {
			out = append(out, p.Error())
		}
	}
	return out
}

// suiteWorkflows finds a workflow suite's workflow in the workflows
// folder, or the version --against names.
type suiteWorkflows struct {
	dir      string
	reg      *registry.Registry
	override *workflow.Workflow
}

func (w *suiteWorkflows) find(name string) (*workflow.Workflow, error) {
	if w.override != nil {
		return w.override, nil
	}
	return findWorkflow(name, w.dir, w.reg)
}
