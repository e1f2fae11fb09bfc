package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/cmd/agentry/answer"
	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/cmd/agentry/followup"
	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/progress"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// runOptions are `agentry run`'s flags.
type runOptions struct {
	model    string
	asJSON   bool
	approve  []string
	denyAsks bool
	budget   struct {
		tokens int64
		usd    float64
		wall   time.Duration
	}
	cont    string
	command string        // a slash command to run (runcommand.go)
	replay  replayOptions // replay.go
}

func (o *runOptions) requestBudget() registry.Budget {
	return registry.Budget{Tokens: o.budget.tokens, USD: o.budget.usd, WallClock: o.budget.wall}
}

// asker answers the run's asked calls: --approve and --deny-asks first,
// then the person at the terminal, if any.
func (s *session) asker(o *runOptions, cfg config.Config) control.Asker {
	return answer.New(answer.Options{Approve: o.approve, DenyAll: o.denyAsks, Timeout: cfg.ApprovalWait(),
		Terminal: s.terminal(), Stderr: s.stderr})
}

// askElsewhere answers no asked call here: it says on stderr what waits
// and how to answer it (the web UI, `agentry approvals`), for a command
// whose terminal is not for answers (chat reads its messages there) or
// that takes no --approve (workflow run).
func (s *session) askElsewhere(cfg config.Config) control.Asker {
	return answer.New(answer.Options{Timeout: cfg.ApprovalWait(), Stderr: s.stderr})
}

// refused is a run that never started: with --json, its result object
// says why too.
func (s *session) refused(err error, asJSON bool) error {
	if asJSON {
		printResult(s.stdout, delegation.Result{Status: trace.StatusError, Error: err.Error()}, true)
	}
	return err
}

// runCommand runs AGENT on TASK, streams progress, writes the trace and
// exits 0 only when the run ends ok. Ctrl-C cancels every branch.
func (s *session) runCommand() *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run AGENT TASK",
		Short: "run an agent on a task, streaming progress and writing its trace",
		Example: `  agentry run research-coordinator "How did Q4 sales develop?"
  agentry run research-coordinator "..." --model script:docs/examples/research.script.yaml --json
  agentry run --continue RUN_ID "And invite Alice too"    # a follow-up in RUN_ID's conversation
  agentry run --continue RUN_ID --budget-tokens 400000    # continue a run its budget stopped
  agentry run --command code-review "the parser change"   # a slash command with its $ARGUMENTS
  agentry run --replay RUN_ID --json                      # RUN_ID's task again with today's agent files`,
		ValidArgsFunction: firstArg(s.agentIDs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return s.run(cmd, args, &o)
		},
	}
	fs := cmd.Flags()
	modelFlag(fs, &o.model, "run")
	jsonFlag(fs, &o.asJSON, "print only the final {run_id, status, result, error} object")
	fs.StringArrayVar(&o.approve, "approve", nil, "approve asked calls matching `PATTERN` (a tool pattern, shell.run(git *), or delegate:AGENT); repeatable")
	fs.BoolVar(&o.denyAsks, "deny-asks", false, "deny every call that asks for approval (after --approve)")
	fs.Int64Var(&o.budget.tokens, "budget-tokens", 0, "stop the run after `N` tokens over its whole tree")
	fs.Float64Var(&o.budget.usd, "budget-usd", 0, "stop the run after `X` US dollars of priced model calls")
	fs.DurationVar(&o.budget.wall, "budget-time", 0, "stop the run after `D` of wall clock (e.g. 15m)")
	fs.StringVar(&o.cont, "continue", "", "continue `RUN_ID`: with a TASK, a follow-up in its conversation; without one, a run its budget stopped, from its report, with a larger --budget-*")
	fs.StringVar(&o.command, "command", "", "run the slash command `NAME` (a plugin's or .claude/commands'), its arguments after it: run --command NAME \"ARGS\"")
	addReplayFlags(fs, &o.replay)
	addConfigFlags(fs, "agents", "db")
	cmd.RegisterFlagCompletionFunc("replay", names(s.recentRunIDs))
	return cmd
}

func (s *session) run(cmd *cobra.Command, args []string, o *runOptions) error {
	if o.replay.asked() { // replay.go
		return s.replayRun(cmd, args, o)
	}
	if b := o.requestBudget(); b.Tokens < 0 || b.USD < 0 || b.WallClock < 0 {
		return usage(cmd, "--budget-tokens, --budget-usd and --budget-time must not be negative")
	}
	task := args // the TASK's words: every argument after --continue, those after the AGENT otherwise
	if o.cont == "" && len(args) > 0 {
		task = args[1:]
	}
	blankTask := len(task) > 0 && strings.TrimSpace(strings.Join(task, " ")) == ""
	switch {
	case cmd.Flags().Changed("continue") && strings.TrimSpace(o.cont) == "":
		return usage(cmd, "--continue needs the RUN_ID of the run to continue")
	case o.command != "" && o.cont != "":
		return usage(cmd, "--command and --continue do not go together")
	case o.command != "":
		return s.runSlashCommand(cmd, strings.Join(args, " "), o) // runcommand.go
	case o.cont != "" && blankTask:
		return usage(cmd, "--continue %s takes a TASK that says something, or none to continue a run its budget stopped", o.cont)
	case o.cont != "":
	case len(args) == 0:
		return usage(cmd, "run needs AGENT and TASK")
	case len(args) == 1 || blankTask:
		return usage(cmd, "run needs a TASK after the agent %q", args[0])
	}
	cfg, err := s.loadConfig(cmd)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	switch {
	case o.cont != "" && len(args) == 0: // a budget continuation (run_continue.go)
		if args, o.model, err = budgetContinuation(ctx, cfg, o.cont, o.model); err != nil {
			return s.refused(err, o.asJSON)
		}
	case o.cont != "": // a follow-up in the run's conversation (run_continue.go)
		return s.followUp(ctx, cfg, o.cont, strings.Join(args, " "), o.model, o.asJSON, s.asker(o, cfg))
	}
	reg, closeAgents, err := s.openAgents(ctx, cfg, false)
	if err != nil {
		return err
	}
	defer closeAgents()
	// A run that never started is not a run: an agent that does not exist,
	// whose file is broken or that is disabled, and a --model that cannot be
	// used, are reported before the trace database opens.
	if err := s.checkStart(reg.Snapshot(), cfg, args[0], o.model); err != nil {
		return s.refused(err, o.asJSON)
	}
	notes := s.stdout
	if o.asJSON {
		notes = s.stderr
	}
	for _, n := range duplicateNotes(reg.Snapshot()) {
		fmt.Fprintf(notes, "⚠ warning: %s\n", n)
	}
	store, err := openStore(cfg.DB)
	if err != nil {
		return err
	}
	defer store.Close()
	s.recordVersions(ctx, store, reg.Snapshot())
	req := delegation.Request{Agent: args[0], Task: strings.Join(args[1:], " "), Model: o.model, Budget: o.requestBudget()}
	if cfg.Engine == config.EngineTemporal {
		return s.runOnTemporal(ctx, cfg, store, req, o.asJSON, s.asker(o, cfg)) // run_temporal.go
	}
	return s.runInProcess(ctx, cfg, reg, store, req, o.asJSON, s.asker(o, cfg))
}

// runInProcess runs req in this process, its trace recorded to store (and
// exported when OpenTelemetry is configured), and prints the result.
func (s *session) runInProcess(ctx context.Context, cfg config.Config, reg *registry.Registry, store traceDB, req delegation.Request, asJSON bool, asker control.Asker) error {
	res, closeErr, err := s.execute(ctx, cfg, reg, store, req, asJSON, asker)
	if err != nil {
		return err
	}
	printResult(s.stdout, res, asJSON)
	if res.Status != trace.StatusOK || closeErr != nil {
		return exitCode(1)
	}
	return nil
}

// execute is runInProcess up to the result: the run, its progress lines
// and its trace; more changes the runtime's configuration (a replay wraps
// the tools). err is a run that failed before it had a result to print
// (with --json, its result object printed already: a run rejected, or one
// whose tools could not start); closeErr is a
// trace that was not all written, said on stderr.
func (s *session) execute(ctx context.Context, cfg config.Config, reg *registry.Registry, store traceDB, req delegation.Request, asJSON bool, asker control.Asker, more ...func(*delegation.Config)) (res delegation.Result, closeErr, err error) {
	ctx, live, err := s.openRuntime(ctx, cfg, reg, runtimeSpec{store: store, asker: asker, sinks: []trace.Sink{s.progress(asJSON)}, join: true, more: more})
	if err != nil { // OpenTelemetry's configuration, the tools (an MCP server) or the runtime: the run never started
		return res, nil, s.refused(err, asJSON)
	}
	res, err = live.rt.Run(ctx, req)
	if err == nil { // so the run can be continued
		if serr := followup.Save(context.WithoutCancel(ctx), store, res, 0); serr != nil {
			fmt.Fprintf(s.stderr, "agentry: warning: run %s cannot be continued: %v\n", res.RunID, serr)
		}
	}
	closeErr = s.finishTrace(live.close()) // said here; the caller exits non-zero
	if rejected := (*delegation.RejectedError)(nil); errors.As(err, &rejected) && asJSON {
		printResult(s.stdout, delegation.Result{RunID: rejected.RunID, Status: trace.StatusError, Error: err.Error()}, true)
		return res, closeErr, exitCode(1)
	}
	return res, closeErr, err
}

// progress is where a run's progress lines go: stdout, or with --json,
// whose stdout is the result alone, warnings only on stderr.
func (s *session) progress(asJSON bool) *progress.Printer {
	if asJSON {
		return progress.New(s.stderr, true)
	}
	return progress.New(s.stdout, false)
}

// printResult prints a run's end: its {run_id, status, result, error}
// object (DESIGN §8), or its status and result for a person.
func printResult(w io.Writer, res delegation.Result, asJSON bool) {
	if asJSON {
		json.NewEncoder(w).Encode(res)
		return
	}
	fmt.Fprintf(w, "\nrun %s: %s\n", res.RunID, res.Status)
	if res.Error != "" {
		fmt.Fprintf(w, "error: %s\n", res.Error)
	}
	if l := res.Limit; l != nil {
		fmt.Fprintf(w, "stopped by %s: to go further, %s\n", l.Setting, l.Raise)
	}
	if res.Result != "" {
		fmt.Fprintf(w, "\n%s\n", res.Result)
	}
}

// resultCode is the exit code of a run that ended: 0 only when it is ok.
func resultCode(res delegation.Result) error {
	if res.Status != trace.StatusOK {
		return exitCode(1)
	}
	return nil
}
