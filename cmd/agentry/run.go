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
	"github.com/agentry/agentry/trace/sqlite"
)

// runCommand runs AGENT on TASK, streams progress, writes the trace and
// exits 0 only when the run ends ok. Ctrl-C cancels every branch.
func runCommand(ctx context.Context, s *session, args []string) int {
	fs := s.flagSet("run")
	modelSpec := fs.String("model", "", "model spec for every agent of the run (demo, script:FILE, provider:model)")
	asJSON := fs.Bool("json", false, "print only the final {run_id, status, result, error} object")
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(rest) < 2 {
		return s.usageError(fs, "want AGENT TASK, got %d arguments", len(rest))
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
	store, err := sqlite.Open(cfg.DB)
	if err != nil {
		return s.fail(err)
	}
	defer store.Close()
	logger := slog.New(slog.NewTextHandler(s.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	rec := trace.NewRecorder(store, trace.RecorderConfig{Logger: logger})
	var sink trace.Sink = rec
	if !*asJSON {
		sink = trace.Tee(rec, &progress{w: s.stdout})
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	rt, stopTools, err := s.newRuntime(ctx, cfg, reg, sink, logger)
	if err != nil {
		rec.Close(context.Background())
		return s.fail(err)
	}
	defer stopTools()
	res, err := rt.Run(ctx, delegation.Request{Agent: rest[0], Task: strings.Join(rest[1:], " "), Model: *modelSpec})
	closeErr := rec.Close(context.Background())
	if rejected := (*delegation.RejectedError)(nil); errors.As(err, &rejected) && *asJSON {
		printResult(s.stdout, delegation.Result{RunID: rejected.RunID, Status: trace.StatusError, Error: err.Error()}, true)
		return 1
	}
	if err != nil {
		return s.fail(err)
	}
	if closeErr != nil {
		fmt.Fprintf(s.stderr, "agentry: trace not fully written: %v\n", closeErr)
	}
	printResult(s.stdout, res, *asJSON)
	if res.Status != trace.StatusOK {
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
	if res.Result != "" {
		fmt.Fprintf(w, "\n%s\n", res.Result)
	}
}

// newRuntime wires the delegation runtime from the configuration: models,
// built-in tools confined to the workspace, the configured MCP servers'
// tools, permissions and limits. The web's serve command uses it too. It
// starts the MCP servers and opens the workspace; stopTools stops and closes
// them and must be called when the command ends.
func (s *session) newRuntime(ctx context.Context, cfg Config, reg *registry.Registry, sink trace.Sink, log *slog.Logger) (rt *delegation.Runtime, stopTools func(), err error) {
	ws, err := filesystem.Open(cfg.Workspace)
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
	rt, err = delegation.New(delegation.Config{
		Agents:          reg,
		Models:          modelProviders(cfg),
		Aliases:         cfg.Models.Aliases,
		DefaultModel:    cfg.Models.Default,
		Sink:            sink,
		Tools:           tools,
		GlobalTools:     cfg.GlobalTools(),
		Delegation:      cfg.DelegationPolicy(),
		MaxConcurrent:   cfg.Delegation.MaxConcurrent,
		MaxAgentsPerRun: cfg.Delegation.MaxAgentsPerRun,
		Timeout:         cfg.Delegation.Timeout,
		TokenBudget:     cfg.Delegation.TokenBudget,
		Logger:          log,
	})
	if err != nil {
		stopTools()
		return nil, nil, err
	}
	return rt, stopTools, nil
}

// progress is a Sink that prints a line as branches start and finish, and as
// tool calls fail, indented by depth.
type progress struct {
	mu   sync.Mutex
	w    io.Writer
	seen map[string]trace.Status
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
	if known && prev == sp.Status {
		return
	}
	indent := strings.Repeat("  ", sp.Depth)
	switch {
	case sp.Kind == trace.KindInvokeAgent && sp.Status == trace.StatusRunning:
		fmt.Fprintf(p.w, "%s▶ %s started: %s\n", indent, sp.Agent, oneLine(fmt.Sprint(sp.Attributes[trace.AttrTask]), 100))
	case sp.Kind == trace.KindInvokeAgent:
		line := fmt.Sprintf("%s%s %s %s in %s", indent, mark(sp.Status), sp.Agent, sp.Status, sp.EndedAt.Sub(sp.StartedAt).Round(time.Millisecond))
		if sp.Error != "" {
			line += ": " + oneLine(sp.Error, 160)
		}
		fmt.Fprintln(p.w, line)
	case sp.Status == trace.StatusRunning:
	case sp.Kind == trace.KindExecuteTool && sp.Attributes[trace.AttrToolName] == delegation.DelegateTool:
		if sp.Status == trace.StatusDenied || sp.Status == trace.StatusSkipped || (sp.Status == trace.StatusError && sp.Attributes[trace.AttrTargetAgent] != nil && !hasChild(sp)) {
			fmt.Fprintf(p.w, "%s  %s delegate → %v %s: %s\n", indent, mark(sp.Status), sp.Attributes[trace.AttrTargetAgent], sp.Status, oneLine(sp.Error, 160))
		}
	case sp.Status != trace.StatusOK:
		fmt.Fprintf(p.w, "%s  %s %s %s: %s\n", indent, mark(sp.Status), strings.TrimPrefix(sp.Name, "execute_tool "), sp.Status, oneLine(sp.Error, 160))
	}
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
