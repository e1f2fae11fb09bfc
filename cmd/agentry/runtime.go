package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/delegation/tool/filesystem"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// runtimeSpec is what one command's runtime has of its own. The rest, the
// same for every command that runs agents (run, chat and run --continue,
// workflow run, eval, the worker, serve, mcp), is recordRuns and
// openRuntime: the recorder, the other sinks, OTLP export, the signals,
// the runtime, and the order they close in.
type runtimeSpec struct {
	// store is the trace store: the runs are recorded there, and their
	// asked calls wait there, where the web UI, `agentry approvals` or the
	// command's asker answers them. writes, when set, is where the
	// recorder writes instead (serve's times the writes for its metrics).
	store  traceDB
	writes trace.Applier
	// asker answers asked calls in this process first (--approve, the
	// terminal); nil leaves them to the store alone.
	asker control.Asker
	// log is the recorder's, OTLP export's and the runtime's logger; nil is
	// warnLog. runtimeLog, when set, is the runtime's instead (serve's
	// carries the run on each line).
	log, runtimeLog *slog.Logger
	// sinks see the spans beside the recorder: progress lines, serve's
	// metrics and per-run log lines.
	sinks []trace.Sink
	// join joins the caller's TRACEPARENT (withOtel): a command a person or
	// a script runs, rather than a server with callers of its own.
	join bool
	// server says the runs outlive the context: a server ends them when it
	// drains (serve, mcp), and watches the signals itself. Otherwise the
	// context ends on Ctrl-C or SIGTERM and the runs with it, so they are
	// recorded cancelled, not left running.
	server bool
	// more changes the runtime's configuration (approvals, models, a
	// replay's tools).
	more []func(*delegation.Config)
}

// recording is where a command's runs go: the recorder, the sinks beside
// it and OTLP export, while the signal watch lasts.
type recording struct {
	store  traceDB
	asker  control.Asker
	sink   trace.Sink      // what the runtime records to
	rec    *trace.Recorder // writes the runs' spans to the store
	rtLog  *slog.Logger    // the runtime's logger
	closes []func()        // stop the signal watch, then send OTLP's last spans
}

// recordRuns opens a recording as spec says. Its context ends on Ctrl-C
// or SIGTERM unless spec.server; an OpenTelemetry configuration it cannot
// use is a configError, and leaves nothing open.
func (s *session) recordRuns(ctx context.Context, cfg config.Config, spec runtimeSpec) (context.Context, *recording, error) {
	log := cmp.Or(spec.log, s.warnLog())
	var writes trace.Applier = spec.store
	if spec.writes != nil {
		writes = spec.writes
	}
	r := &recording{store: spec.store, asker: spec.asker, rec: trace.NewRecorder(writes, trace.RecorderConfig{Logger: log}), rtLog: cmp.Or(spec.runtimeLog, log)}
	if spec.server {
		ctx = context.WithoutCancel(ctx) // keeping its values (OTel)
	} else {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		r.closes = append(r.closes, stop)
	}
	ctx, sink, otelDone, err := s.withOtel(ctx, cfg, trace.Tee(append([]trace.Sink{r.rec}, spec.sinks...)...), log, spec.join)
	if err != nil {
		r.close()
		return ctx, nil, configError{err}
	}
	r.sink, r.closes = sink, append(r.closes, otelDone)
	return ctx, r, nil
}

// close ends the recording once its runs have ended: the recorder first
// (closeTrace: a trace not all written is an error), while Ctrl-C is
// still caught, then the signal watch, then OTLP export, which waits for
// its last spans to be sent.
func (r *recording) close() error {
	err := closeTrace(r.rec)
	for _, c := range r.closes {
		c()
	}
	return err
}

// liveRuntime is the runtime of a command that runs agents in this
// process, and the recording its runs go to.
type liveRuntime struct {
	*recording
	rt        *delegation.Runtime
	stopTools func()
}

// openRuntime is what every command does before its agents run in this
// process: the recording (recordRuns) and the runtime on it, as spec says.
// On an error nothing is left open.
func (s *session) openRuntime(ctx context.Context, cfg config.Config, reg *registry.Registry, spec runtimeSpec) (context.Context, *liveRuntime, error) {
	ctx, r, err := s.recordRuns(ctx, cfg, spec)
	if err != nil {
		return ctx, nil, err
	}
	dc, stopTools, err := s.runtimeConfig(ctx, cfg, reg, r, spec.more...)
	if err != nil {
		r.close()
		return ctx, nil, err
	}
	rt, err := delegation.New(dc)
	if err != nil {
		stopTools()
		r.close()
		return ctx, nil, err
	}
	return ctx, &liveRuntime{recording: r, rt: rt, stopTools: stopTools}, nil
}

// close ends the runtime once its runs have ended: the tools (MCP servers,
// the workspace), then the recording.
func (l *liveRuntime) close() error {
	l.stopTools()
	return l.recording.close()
}

// finishTrace says on stderr the error of closing a command's runtime or
// recording, a trace not all written, and returns exitCode(1) for it: the
// command ends 1 even when its runs went well.
func (s *session) finishTrace(err error) error {
	if err == nil {
		return nil
	}
	fmt.Fprintf(s.stderr, "agentry: %v\n", trace.Redact(err.Error()))
	return exitCode(1)
}

// runtimeConfig wires the runtime's configuration from the agentry
// configuration: models, built-in tools confined to the workspace, the
// configured MCP servers' tools, permissions and limits; and from the
// recording r: the sink, the log, the store asked calls wait in and who
// answers them here. It
// starts the MCP servers and opens the workspace; stopTools stops and
// closes them and must be called when the runs end. openRuntime builds the
// runtime on it; eval hands it to its cases, which add their models.
func (s *session) runtimeConfig(ctx context.Context, cfg config.Config, reg interface{ Snapshot() *registry.Snapshot }, r *recording, more ...func(*delegation.Config)) (dc delegation.Config, stopTools func(), err error) {
	log := r.rtLog
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
		Sink:            r.sink,
		Approvals:       r.store,
		Asker:           r.asker,
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
