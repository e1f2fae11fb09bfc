package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/delegation/tool/filesystem"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// newRuntime wires the delegation runtime from the configuration: models,
// built-in tools confined to the workspace, the configured MCP servers'
// tools, permissions and limits; every command that runs agents uses it.
// It starts the MCP servers and opens the workspace; stopTools stops and
// closes them and must be called when the command ends.
func (s *session) newRuntime(ctx context.Context, cfg config.Config, reg *registry.Registry, sink trace.Sink, log *slog.Logger, more ...func(*delegation.Config)) (rt *delegation.Runtime, stopTools func(), err error) {
	dc, stopTools, err := s.runtimeConfig(ctx, cfg, reg, sink, log, more...)
	if err != nil {
		return nil, nil, err
	}
	rt, err = delegation.New(dc)
	if err != nil {
		stopTools()
		return nil, nil, err
	}
	return rt, stopTools, nil
}

// liveRuntime is the runtime of a command that runs agents in this
// process and records them (openRuntime).
type liveRuntime struct {
	rt   *delegation.Runtime
	rec  *trace.Recorder // writes the runs' spans; the caller closes it when they end
	stop func()          // stops the tools, the OTLP export and the signal watch
}

// openRuntime is what run, workflow run and the worker do before their
// agents run: a recorder writing to store (progress, when not nil, sees
// the spans too), live OTLP export when configured (join: under the
// caller's TRACEPARENT, as withOtel says), and the runtime, more changing
// its configuration. The context it returns ends on Ctrl-C or SIGTERM. On
// an error nothing is left open; an OpenTelemetry one is a configError.
func (s *session) openRuntime(ctx context.Context, cfg config.Config, reg *registry.Registry, store traceDB, progress trace.Sink, join bool, more ...func(*delegation.Config)) (context.Context, *liveRuntime, error) {
	logger := s.warnLog()
	rec := trace.NewRecorder(store, trace.RecorderConfig{Logger: logger})
	var sink trace.Sink = rec
	if progress != nil {
		sink = trace.Tee(rec, progress)
	}
	ctx, sink, otelDone, err := s.withOtel(ctx, cfg, sink, logger, join)
	if err != nil {
		rec.Close(context.Background())
		return ctx, nil, configError{err}
	}
	ctx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	rt, stopTools, err := s.newRuntime(ctx, cfg, reg, sink, logger, more...)
	if err != nil {
		stopSignals()
		otelDone()
		rec.Close(context.Background())
		return ctx, nil, err
	}
	return ctx, &liveRuntime{rt: rt, rec: rec, stop: func() { stopTools(); stopSignals(); otelDone() }}, nil
}

// finishTrace is closeTrace for a command whose runs ended: a trace not
// all written is said on stderr, and returned so the command can exit 1.
func (s *session) finishTrace(rec *trace.Recorder) error {
	err := closeTrace(rec)
	if err != nil {
		fmt.Fprintf(s.stderr, "agentry: %v\n", trace.Redact(err.Error()))
	}
	return err
}

// runtimeConfig is newRuntime's configuration, for a command that builds
// its runtimes itself (eval adds its cases' models, a replay wraps the
// tools); stopTools is as newRuntime's.
func (s *session) runtimeConfig(ctx context.Context, cfg config.Config, reg interface{ Snapshot() *registry.Snapshot }, sink trace.Sink, log *slog.Logger, more ...func(*delegation.Config)) (dc delegation.Config, stopTools func(), err error) {
	ws, err := filesystem.Open(cfg.Workspace, ownState(cfg)...)
	if err != nil {
		return dc, nil, err
	}
	servers, stopServers, err := s.startMCP(ctx, cfg)
	if err != nil {
		ws.Close()
		return dc, nil, err
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
		return dc, nil, err
	}
	dc = delegation.Config{
		ApprovalTimeout: cfg.ApprovalTimeout.D(),
		Budget:          cfg.Budget.Budget(),
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
		Timeout:         cfg.Delegation.Timeout.D(),
		TokenBudget:     cfg.Delegation.TokenBudget,
		Logger:          log,
		Remote:          s.remoteAgents(ctx, cfg, reg, log),
	}
	if s.lib != nil {
		dc.Skills = s.lib
	}
	plain, orchestrator := cfg.Limits.Runtime()
	dc.Limits, dc.OrchestratorLimits = plain, &orchestrator
	for _, m := range more {
		m(&dc)
	}
	return dc, stopTools, nil
}

// warnLog is the logger of a command run at a terminal: warnings and
// errors on stderr, secrets redacted, without the time a person reading
// them already knows.
func (s *session) warnLog() *slog.Logger {
	return slog.New(slog.NewTextHandler(s.stderr, &slog.HandlerOptions{Level: slog.LevelWarn, ReplaceAttr: terminalAttr}))
}

// terminalAttr is trace.RedactAttr without the record's time.
func terminalAttr(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return trace.RedactAttr(groups, a)
}
