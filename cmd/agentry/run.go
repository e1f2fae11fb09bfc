package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/delegation/tool/filesystem"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// runCommand runs AGENT on TASK, streams progress, writes the trace and
// exits 0 only when the run ends ok. Ctrl-C cancels every branch.
func runCommand(ctx context.Context, s *session, args []string) int {
	fs := s.flagSet("run")
	modelSpec := fs.String("model", "", "the model `SPEC` for every agent of the run: demo, script:FILE, provider:model, an alias or a model name")
	asJSON := fs.Bool("json", false, "print only the final {run_id, status, result, error} object")
	command := fs.String("command", "", "run the slash command `NAME` (a plugin's or .claude/commands'), its arguments after it: run --command NAME \"ARGS\"")
	rf := addRunFlags(fs)
	rest, code, ok := s.parse(fs, args)
	if !ok {
		return code
	}
	if b := rf.budget(); b.Tokens < 0 || b.USD < 0 || b.WallClock < 0 {
		return s.usageError(fs, "--budget-tokens, --budget-usd and --budget-time must not be negative")
	}
	switch {
	case *rf.cont != "" && len(rest) == 0: // a budget continuation (continue_budget.go)
		var err error
		if rest, *modelSpec, err = s.budgetContinuation(fs, *rf.cont, *modelSpec); err != nil {
			return s.fail(err)
		}
	case *rf.cont != "": // a follow-up in the run's conversation (conversation.go)
		cfg, err := s.loadConfig(fs)
		if err != nil {
			return s.badConfig(err)
		}
		return s.followUp(ctx, cfg, *rf.cont, strings.Join(rest, " "), *modelSpec, *asJSON)
	}
	if *command != "" {
		return s.runSlashCommand(ctx, fs, *command, strings.Join(rest, " "), *modelSpec, *asJSON, rf)
	}
	switch len(rest) {
	case 0:
		return s.usageError(fs, "run needs AGENT and TASK")
	case 1:
		return s.usageError(fs, "run needs a TASK after the agent %q", rest[0])
	}
	cfg, err := s.loadConfig(fs)
	if err != nil {
		return s.badConfig(err)
	}
	reg, closeAgents, err := s.openAgents(ctx, cfg, false)
	if err != nil {
		return s.fail(err)
	}
	defer closeAgents()
	// A run that never started is not a run: an agent that does not exist,
	// whose file is broken or that is disabled, and a --model that cannot be
	// used, are reported before the trace database opens.
	if err := s.checkStart(reg.Snapshot(), cfg, rest[0], *modelSpec); err != nil {
		if *asJSON {
			printResult(s.stdout, delegation.Result{Status: trace.StatusError, Error: err.Error()}, true)
		}
		return s.fail(err)
	}
	notes := s.stdout
	if *asJSON {
		notes = s.stderr
	}
	for _, n := range duplicateNotes(reg.Snapshot()) {
		fmt.Fprintf(notes, "⚠ warning: %s\n", n)
	}
	store, err := openStore(cfg.DB)
	if err != nil {
		return s.fail(err)
	}
	defer store.Close()
	req := delegation.Request{Agent: rest[0], Task: strings.Join(rest[1:], " "), Model: *modelSpec, Budget: rf.budget()}
	asker := s.newCLIAsker(rf, cfg.approvalTimeout())
	if cfg.Engine == EngineTemporal {
		return s.runOnTemporal(ctx, cfg, store, req, *asJSON, asker)
	}
	return s.runInProcess(ctx, cfg, reg, store, req, *asJSON, asker)
}

// runInProcess runs req in this process, its trace recorded to store (and
// exported when OpenTelemetry is configured), and prints the result.
func (s *session) runInProcess(ctx context.Context, cfg Config, reg *registry.Registry, store trace.Store, req delegation.Request, asJSON bool, asker delegation.Asker) int {
	logger := slog.New(slog.NewTextHandler(s.stderr, &slog.HandlerOptions{Level: slog.LevelWarn, ReplaceAttr: trace.RedactAttr}))
	rec := trace.NewRecorder(store, trace.RecorderConfig{Logger: logger})
	var sink trace.Sink = trace.Tee(rec, &progress{w: s.stdout})
	if asJSON { // stdout is the result alone; warnings go to stderr
		sink = trace.Tee(rec, &progress{w: s.stderr, warningsOnly: true})
	}
	ctx, sink, otelDone, err := s.withOtel(ctx, cfg, sink, logger, true)
	if err != nil {
		rec.Close(context.Background())
		return s.badConfig(err)
	}
	defer otelDone()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	approvals, _ := store.(trace.ApprovalStore) // nil: asks are answered in this process only
	rt, stopTools, err := s.newRuntime(ctx, cfg, reg, sink, logger, func(c *delegation.Config) { c.Approvals, c.Asker = approvals, asker })
	if err != nil {
		rec.Close(context.Background())
		return s.fail(err)
	}
	defer stopTools()
	res, err := rt.Run(ctx, req)
	if cs, ok := store.(conversationStore); ok && err == nil { // so the run can be continued (conversation.go)
		if serr := saveConversation(context.WithoutCancel(ctx), cs, res, 0); serr != nil {
			fmt.Fprintf(s.stderr, "agentry: warning: run %s cannot be continued: %v\n", res.RunID, serr)
		}
	}
	closeErr := rec.Close(context.Background())
	if closeErr != nil {
		// Never lost silently: say so, and exit non-zero below.
		fmt.Fprintf(s.stderr, "agentry: trace incomplete (%d records lost): %v\n", rec.Dropped(), trace.Redact(closeErr.Error()))
	}
	if rejected := (*delegation.RejectedError)(nil); errors.As(err, &rejected) && asJSON {
		printResult(s.stdout, delegation.Result{RunID: rejected.RunID, Status: trace.StatusError, Error: err.Error()}, true)
		return 1
	}
	if err != nil {
		return s.fail(err)
	}
	printResult(s.stdout, res, asJSON)
	if res.Status != trace.StatusOK || closeErr != nil {
		return 1
	}
	return 0
}

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

// newRuntime wires the delegation runtime from the configuration: models,
// built-in tools confined to the workspace, the configured MCP servers'
// tools, permissions and limits. The web's serve command uses it too. It
// starts the MCP servers and opens the workspace; stopTools stops and closes
// them and must be called when the command ends.
func (s *session) newRuntime(ctx context.Context, cfg Config, reg *registry.Registry, sink trace.Sink, log *slog.Logger, more ...func(*delegation.Config)) (rt *delegation.Runtime, stopTools func(), err error) {
	ws, err := filesystem.Open(cfg.Workspace, ownState(cfg)...)
	if err != nil {
		return nil, nil, err
	}
	servers, stopServers, err := s.startMCP(ctx, cfg)
	if err != nil {
		ws.Close()
		return nil, nil, err
	}
	stopTools = func() {
		stopServers()
		ws.Close()
	}
	tools := tool.Tools(builtinTools(cfg, ws))
	tools = append(tools, servers.Tools()...)
	hk, prices, err := observers(cfg, tool.Names(tools), log)
	if err != nil {
		stopTools()
		return nil, nil, err
	}
	dc := delegation.Config{
		ApprovalTimeout: cfg.ApprovalTimeout,
		Budget:          cfg.Budget.budget(),
		Hooks:           hk,
		Prices:          prices,
		Agents:          reg,
		Models:          modelProviders(cfg, s.getenv),
		Aliases:         cfg.Models.Aliases,
		DefaultModel:    cfg.Models.Default,
		Sink:            sink,
		Tools:           tools,
		GlobalTools:     cfg.GlobalTools(),
		GlobalSkills:    cfg.GlobalSkills(),
		Delegation:      cfg.DelegationPolicy(),
		MaxConcurrent:   cfg.Delegation.MaxConcurrent,
		MaxAgentsPerRun: cfg.Delegation.MaxAgentsPerRun,
		Timeout:         cfg.Delegation.Timeout,
		TokenBudget:     cfg.Delegation.TokenBudget,
		Logger:          log,
	}
	if s.lib != nil {
		dc.Skills = s.lib
	}
	plain, orchestrator := cfg.Limits.runtime()
	dc.Limits, dc.OrchestratorLimits = plain, &orchestrator
	for _, m := range more {
		m(&dc)
	}
	rt, err = delegation.New(dc)
	if err != nil {
		stopTools()
		return nil, nil, err
	}
	return rt, stopTools, nil
}

// progress is a Sink that prints a line as branches start and finish, and as
// tool calls fail, indented by depth.
type progress struct {
	mu sync.Mutex
	w  io.Writer
	// warningsOnly prints only what the user must know even in --json
	// mode: an agent running on the default instead of its file's model.
	warningsOnly bool
	seen         map[string]trace.Status
	events       map[string]int // events of each span printed so far
}

func (p *progress) RecordRun(trace.Run) {}

func (p *progress) RecordSpan(sp trace.Span) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seen == nil {
		p.seen = map[string]trace.Status{}
	}
	prev, known := p.seen[sp.ID]
	p.seen[sp.ID] = sp.Status
	indent := strings.Repeat("  ", sp.Depth)
	if !p.warningsOnly {
		p.queued(sp, indent)
	}
	if known && prev == sp.Status {
		return
	}
	if fallback, ok := sp.Attributes[delegation.AttrModelFallback]; ok && !known {
		fmt.Fprintf(p.w, "%s⚠ warning: %s: %s\n", indent, sp.Agent, oneLine(fmt.Sprint(fallback), 300))
	}
	if p.warningsOnly {
		return
	}
	switch {
	case sp.Kind == trace.KindInvokeAgent && sp.Status == trace.StatusRunning:
		fmt.Fprintf(p.w, "%s▶ %s started: %s\n", indent, sp.Agent, oneLine(fmt.Sprint(sp.Attributes[trace.AttrTask]), 100))
		p.withheld(sp, indent)
	case sp.Kind == trace.KindInvokeAgent:
		line := fmt.Sprintf("%s%s %s %s in %s", indent, mark(sp.Status), sp.Agent, sp.Status, sp.EndedAt.Sub(sp.StartedAt).Round(time.Millisecond))
		if sp.Error != "" {
			line += ": " + oneLine(sp.Error, 160)
		}
		fmt.Fprintln(p.w, line)
	case sp.Status == trace.StatusRunning:
	case sp.Kind == trace.KindExecuteTool && sp.Attributes[trace.AttrToolName] == delegation.DelegateTool:
		if kind, ok := refused(sp); ok {
			fmt.Fprintf(p.w, "%s  %s delegation to %v refused (%s): %s\n", indent, mark(sp.Status), target(sp), kind, oneLine(sp.Error, 200))
		}
	case sp.Status != trace.StatusOK:
		fmt.Fprintf(p.w, "%s  %s %s %s: %s\n", indent, mark(sp.Status), strings.TrimPrefix(sp.Name, "execute_tool "), sp.Status, oneLine(sp.Error, 160))
	}
}

// refused reports a delegation that never started its sub-agent, and the
// kind of refusal: the runtime's (delegation.AttrRefused: depth,
// permission, max_agents, dependency, ...), else its status for a denial,
// a skip, a tripped limit or an error before the child began.
func refused(sp trace.Span) (kind string, ok bool) {
	if k, ok := sp.Attributes[delegation.AttrRefused]; ok {
		return fmt.Sprint(k), true
	}
	switch sp.Status {
	case trace.StatusDenied, trace.StatusSkipped:
		return string(sp.Status), true
	case trace.StatusError, "limit": // limit: DESIGN §5 status for a tripped cap or budget
		return string(sp.Status), !hasChild(sp)
	}
	return "", false
}

// queued prints a line for each delegation that has to wait for a
// concurrency slot, so a run held up by a cap does not look stuck. Calls
// over a cap wait; they are not refused.
func (p *progress) queued(sp trace.Span, indent string) {
	if p.events == nil {
		p.events = map[string]int{}
	}
	for _, ev := range sp.Events[min(p.events[sp.ID], len(sp.Events)):] {
		if ev.Name == trace.EventApproval {
			approvalLine(p.w, sp, ev, indent)
		}
		if ev.Name != trace.EventQueued {
			continue
		}
		limit := ev.Attributes[trace.EventAttrLimit]
		cap := fmt.Sprintf("the run-wide delegation.max_concurrent (%v)", limit)
		switch ev.Attributes[trace.EventAttrCap] {
		case trace.CapAgent:
			cap = fmt.Sprintf("%v's subagents.max_concurrent (%v)", ev.Attributes[trace.EventAttrAgent], limit)
		case trace.CapTurn:
			cap = fmt.Sprintf("the agents %v started in one turn, limits.turn_agents (%v),", ev.Attributes[trace.EventAttrAgent], limit)
		}
		fmt.Fprintf(p.w, "%s  ⏸ delegation to %v waits for a slot: %s is reached\n", indent, target(sp), cap)
	}
	p.events[sp.ID] = len(sp.Events)
}

// withheld prints the runtime's note that an agent naming sub-agents is not
// offered the delegate tool at this depth, so its delegation stops without
// a refused call to show.
func (p *progress) withheld(sp trace.Span, indent string) {
	for _, ev := range sp.Events {
		if ev.Name == delegation.EventDelegationWithheld {
			fmt.Fprintf(p.w, "%s  ⊘ %s may not delegate here (%v): %s\n", indent, sp.Agent,
				ev.Attributes[delegation.EventAttrRefused], oneLine(fmt.Sprint(ev.Attributes[delegation.EventAttrReason]), 200))
		}
	}
}

// target is the agent a delegation asked for, as far as the span knows it.
func target(sp trace.Span) any {
	if t, ok := sp.Attributes[trace.AttrTargetAgent]; ok && t != nil && t != "" {
		return t
	}
	return "an unnamed agent"
}

// hasChild is false for a delegation that never started its sub-agent.
func hasChild(sp trace.Span) bool { _, ok := sp.Attributes[trace.AttrQueuedMS]; return ok }

func mark(st trace.Status) string {
	switch st {
	case trace.StatusOK:
		return "✓"
	case trace.StatusDenied, trace.StatusSkipped:
		return "⊘"
	default:
		return "✗"
	}
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
