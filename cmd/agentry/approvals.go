package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// BudgetConfig is the `budget:` key: caps per run, counted over the whole
// tree (docs/cost.md). 0 sets no cap.
type BudgetConfig struct {
	Tokens    int64         `yaml:"tokens"`
	USD       float64       `yaml:"usd"`
	WallClock time.Duration `yaml:"wall_clock"`
}

func (b BudgetConfig) budget() registry.Budget {
	return registry.Budget{Tokens: b.Tokens, USD: b.USD, WallClock: b.WallClock}
}

// validateApprovals reports a negative approval_timeout or budget.
func (c Config) validateApprovals() error {
	switch {
	case c.ApprovalTimeout < 0:
		return fmt.Errorf("config: approval_timeout must not be negative, got %s", c.ApprovalTimeout)
	case c.Budget.Tokens < 0 || c.Budget.USD < 0 || c.Budget.WallClock < 0:
		return fmt.Errorf("config: budget values must not be negative, got %+v", c.Budget)
	}
	return nil
}

// approvalTimeout is the configured timeout with its default.
func (c Config) approvalTimeout() time.Duration {
	if c.ApprovalTimeout > 0 {
		return c.ApprovalTimeout
	}
	return control.DefaultApprovalTimeout
}

// patternList is a repeatable flag.
type patternList []string

func (p *patternList) String() string     { return strings.Join(*p, ",") }
func (p *patternList) Set(v string) error { *p = append(*p, v); return nil }

// runFlags are `agentry run`'s approval and budget flags.
type runFlags struct {
	approve  patternList
	denyAsks *bool
	tokens   *int64
	usd      *float64
	wall     *time.Duration
	cont     *string
}

func addRunFlags(fs *flag.FlagSet) *runFlags {
	f := &runFlags{}
	fs.Var(&f.approve, "approve", "approve asked calls matching `PATTERN` (a tool pattern, shell.run(git *), or delegate:AGENT); repeatable")
	f.denyAsks = fs.Bool("deny-asks", false, "deny every call that asks for approval (after --approve)")
	f.tokens = fs.Int64("budget-tokens", 0, "stop the run after `N` tokens over its whole tree")
	f.usd = fs.Float64("budget-usd", 0, "stop the run after `X` US dollars of priced model calls")
	f.wall = fs.Duration("budget-time", 0, "stop the run after `D` of wall clock (e.g. 15m)")
	f.cont = fs.String("continue", "", "continue `RUN_ID`: with a TASK, a follow-up in its conversation; without one, a run its budget stopped, from its report, with a larger --budget-*")
	return f
}

func (f *runFlags) budget() registry.Budget {
	return registry.Budget{Tokens: *f.tokens, USD: *f.usd, WallClock: *f.wall}
}

// cliAsker answers ask verdicts for `agentry run`: --approve patterns,
// then --deny-asks, then a person at the terminal; without any of them
// the call waits for an answer from elsewhere (the web UI, `agentry
// approvals`), which it says on stderr.
type cliAsker struct {
	approve  []string
	denyAll  bool
	timeout  time.Duration
	stderr   io.Writer
	lines    <-chan string // the terminal's lines; nil without a terminal
	promptMu sync.Mutex    // one question at a time
	// startReading starts the reader of lines, once.
	startReading func()
}

// newCLIAsker builds the asker. With a terminal on stdin, the first
// question starts one reader of its lines for the rest of the run, so a
// question answered elsewhere leaves no reader behind, and a run that never
// asks never reads the terminal.
func (s *session) newCLIAsker(f *runFlags, timeout time.Duration) *cliAsker {
	a := &cliAsker{approve: f.approve, denyAll: *f.denyAsks, timeout: timeout, stderr: s.stderr}
	if s.interactive() {
		lines := make(chan string)
		a.lines = lines
		a.startReading = sync.OnceFunc(func() {
			go func() {
				sc := bufio.NewScanner(s.stdin)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
		})
	}
	return a
}

// Answer implements control.Asker.
func (a *cliAsker) Answer(ctx context.Context, ap trace.Approval) (trace.Answer, bool) {
	now := time.Now()
	for _, p := range a.approve {
		if approves(p, ap) {
			return trace.Answer{Approve: true, By: "--approve " + p, At: now}, true
		}
	}
	if a.denyAll {
		return trace.Answer{By: "--deny-asks", Note: "this run denies every call that asks for approval", At: now}, true
	}
	if a.lines == nil {
		a.promptMu.Lock()
		fmt.Fprintf(a.stderr, "⏸ %s wants to call %s %s\n  %s\n  waiting for an answer: `agentry approvals approve %s` (or deny ... --reason TEXT), or the web UI's approvals page; denied after %s\n",
			ap.Agent, ap.Tool, oneLine(ap.Arguments, 200), ap.Reason, ap.ID, a.timeout)
		a.promptMu.Unlock()
		return trace.Answer{}, false
	}
	return a.prompt(ctx, ap)
}

// prompt asks the person at the terminal: y, a (approve for this run) or
// n and a reason.
func (a *cliAsker) prompt(ctx context.Context, ap trace.Approval) (trace.Answer, bool) {
	a.promptMu.Lock()
	defer a.promptMu.Unlock()
	if ctx.Err() != nil {
		return trace.Answer{}, false
	}
	a.startReading()
	fmt.Fprintf(a.stderr, "\n? %s wants to call %s %s\n  %s\n  approve? [y]es, [a] for the rest of this run, [n]o: ", ap.Agent, ap.Tool, oneLine(ap.Arguments, 300), ap.Reason)
	for {
		line, ok := a.read(ctx)
		if !ok {
			fmt.Fprintln(a.stderr, "(answered elsewhere)")
			return trace.Answer{}, false
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return trace.Answer{Approve: true, By: "terminal", At: time.Now()}, true
		case "a", "all":
			return trace.Answer{Approve: true, ForRun: true, By: "terminal", At: time.Now()}, true
		case "n", "no":
			fmt.Fprint(a.stderr, "  reason (told to the agent): ")
			why, _ := a.read(ctx)
			return trace.Answer{By: "terminal", Note: strings.TrimSpace(why), At: time.Now()}, true
		}
		fmt.Fprint(a.stderr, "  y, a or n: ")
	}
}

// read returns the terminal's next line, or false when ctx ends or the
// terminal closed.
func (a *cliAsker) read(ctx context.Context) (string, bool) {
	select {
	case line, ok := <-a.lines:
		return line, ok
	case <-ctx.Done():
		return "", false
	}
}

// approves reports whether an --approve pattern covers the asked call: a
// tool pattern matching the tool, "delegate:AGENT" (AGENT a pattern) for
// a delegation, or a command pattern every command of the call matches.
func approves(p string, ap trace.Approval) bool {
	if target, ok := strings.CutPrefix(p, "delegate:"); ok {
		agent, _ := strings.CutPrefix(ap.Subject, "delegate:")
		return ap.Tool == delegation.DelegateTool && permissions.Match(target, agent)
	}
	if ap.Tool == delegation.DelegateTool {
		return false
	}
	if _, _, ok := permissions.SplitPattern(p); !ok {
		return permissions.Match(p, ap.Tool)
	}
	var args struct{ Command string }
	if json.Unmarshal([]byte(ap.Arguments), &args) != nil {
		return false
	}
	chain := []permissions.Level{{Name: "--approve", Rules: permissions.Rules{Allow: []string{p}}}}
	return permissions.Command(chain, ap.Tool, args.Command).Allowed && permissions.Tool(chain, ap.Tool).Allowed
}

// approvalsCommand is `agentry approvals list|approve ID|deny ID --reason TEXT`.
func approvalsCommand(ctx context.Context, s *session, args []string) int {
	fs := s.flagSet("approvals")
	runID := fs.String("run", "", "list: only the approvals of `RUN_ID`")
	all := fs.Bool("all", false, "list: answered approvals too, not only pending ones")
	asJSON := fs.Bool("json", false, "list: print JSON")
	forRun := fs.Bool("for-run", false, "approve: also approve every later call of the same tool (or agent) in that run")
	reason := fs.String("reason", "", "deny: the `TEXT` the agent is told")
	rest, code, ok := s.parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) == 0 {
		return s.usageError(fs, "approvals needs list, approve ID or deny ID")
	}
	cfg, err := s.loadConfig(fs)
	if err != nil {
		return s.badConfig(err)
	}
	st, err := openStore(cfg.DB)
	if err != nil {
		return s.fail(err)
	}
	defer st.Close()
	store, ok := st.(trace.ApprovalStore)
	if !ok {
		return s.fail(errors.New("this trace store keeps no approvals"))
	}
	switch verb := rest[0]; {
	case verb == "list" && len(rest) == 1:
		f := trace.ApprovalFilter{RunID: *runID, Status: trace.ApprovalPending}
		if *all {
			f.Status = ""
		}
		list, err := store.Approvals(ctx, f)
		if err != nil {
			return s.fail(err)
		}
		return s.printApprovals(list, *asJSON)
	case (verb == "approve" || verb == "deny") && len(rest) == 2:
		if verb == "deny" && strings.TrimSpace(*reason) == "" {
			return s.usageError(fs, "deny needs --reason TEXT: the agent is told why")
		}
		ans := trace.Answer{Approve: verb == "approve", ForRun: *forRun, By: "cli", Note: strings.TrimSpace(*reason), At: time.Now()}
		if u := s.getenv("USER"); u != "" {
			ans.By = "cli:" + u
		}
		a, err := store.DecideApproval(ctx, rest[1], ans)
		if errors.Is(err, trace.ErrDecided) {
			return s.fail(fmt.Errorf("approval %s was already answered: %s by %s", a.ID, a.Status, a.DecidedBy))
		}
		if err != nil {
			return s.fail(err)
		}
		fmt.Fprintf(s.stdout, "%s %s: %s %s (run %s)\n", a.Status, a.ID, a.Agent, a.Tool, a.RunID)
		s.notifyTemporal(ctx, cfg, a) // temporal_approvals.go
		return 0
	}
	return s.usageError(fs, "approvals needs list, approve ID or deny ID --reason TEXT, got %q", strings.Join(rest, " "))
}

func (s *session) printApprovals(list []trace.Approval, asJSON bool) int {
	if asJSON {
		if list == nil {
			list = []trace.Approval{}
		}
		json.NewEncoder(s.stdout).Encode(list)
		return 0
	}
	if len(list) == 0 {
		fmt.Fprintln(s.stdout, "no approvals waiting")
		return 0
	}
	for _, a := range list {
		fmt.Fprintf(s.stdout, "%s  %-8s  %s  run %s  %s wants %s %s\n    %s\n", a.ID, a.Status, a.RequestedAt.Local().Format("2006-01-02 15:04:05"),
			a.RunID, a.Agent, a.Tool, oneLine(a.Arguments, 160), a.Reason)
		if a.Status != trace.ApprovalPending {
			fmt.Fprintf(s.stdout, "    %s by %s %s\n", a.Status, a.DecidedBy, a.Note)
		}
	}
	return 0
}

// approvalLine prints the answer to an asked call as the run's progress:
// "✓ shell.run approved by web" or "⊘ shell.run denied by cli:lee: reason".
func approvalLine(w io.Writer, sp trace.Span, ev trace.Event, indent string) {
	a := ev.Attributes
	what := strings.TrimPrefix(sp.Name, "execute_tool ")
	if what == delegation.DelegateTool {
		what = fmt.Sprintf("delegation to %v", target(sp))
	}
	line := fmt.Sprintf("%s  ✓ %s approved by %v", indent, what, a[trace.EventAttrDecidedBy])
	if a[trace.EventAttrVerdict] != string(trace.ApprovalApproved) {
		line = fmt.Sprintf("%s  ⊘ %s denied by %v", indent, what, a[trace.EventAttrDecidedBy])
	}
	if why, ok := a[trace.EventAttrReason].(string); ok && why != "" {
		line += ": " + oneLine(why, 160)
	}
	fmt.Fprintln(w, line)
}
