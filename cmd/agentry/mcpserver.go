package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/cmd/agentry/runlog"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/web"
	"github.com/agentry/agentry/web/core"
	"github.com/agentry/agentry/web/mcp"
)

// mcpCommand serves the exposed agents as MCP tools over stdio, for an MCP
// client that starts agentry itself (Claude Code's `claude mcp add`, VS
// Code's .vscode/mcp.json). stdout carries the protocol alone: every log
// line goes to stderr. It ends when the client closes stdin.
func (s *session) mcpCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "serve the exposed agents as MCP tools over stdio (expose: in agentry.yaml)",
		Args:  noArgs,
		RunE: s.with(configOnly, func(cmd *cobra.Command, args []string, o *opened) error {
			cfg := o.cfg
			log := runlog.Logger(s.stderr, cfg.Serve.LogFormat)
			if len(cfg.Expose.Agents)+len(cfg.Expose.Workflows) == 0 {
				log.Warn("nothing is exposed: list agents under expose.agents, workflows under expose.workflows in agentry.yaml (docs/mcp-server.md)")
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return s.serveMCP(ctx, cfg, log)
		}),
	}
	addConfigFlags(cmd.Flags(), "agents", "workflows", "db", "log-format")
	return cmd
}

// serveMCP opens what a run needs (agents, traces, the runtime), as serve
// does, and serves MCP on the session's stdin and stdout until the client
// goes away; the runs still going are then cancelled and recorded.
func (s *session) serveMCP(ctx context.Context, cfg config.Config, log *slog.Logger) (err error) {
	reg, closeAgents, err := s.openAgents(ctx, cfg, true)
	if err != nil {
		return err
	}
	defer closeAgents()
	store, err := openStore(cfg.DB)
	if err != nil {
		return fmt.Errorf("open traces: %w", err)
	}
	defer store.Close()
	defer trace.StartReaper(store, reapInterval, log)()
	// The runs go on after ctx ends until they are cancelled below.
	_, live, err := s.openRuntime(ctx, cfg, reg, runtimeSpec{store: store, log: log, server: true})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, live.close()) }()
	runs := &uiRunner{rt: live.rt, rec: live.rec, store: store, log: log}
	defer runs.wait(cancelWait, nil)
	webCfg := web.Config{Runtime: runs, WorkflowRuntime: uiWorkflows{runs}}
	closeWorkflows, err := watchWorkflows(ctx, cfg, reg, nil, log, &webCfg) // the exposed workflows are tools too
	if err != nil {
		return err
	}
	defer closeWorkflows()
	if cfg.Engine == config.EngineTemporal { // calls submit to Temporal, as serve's forms do
		closeEngine, err := onTemporal(ctx, cfg, store, runs, log, &webCfg)
		if err != nil {
			return err
		}
		defer closeEngine()
	}
	stopRuns := make(chan struct{})
	defer close(stopRuns) // cancels the runs still going: deferred after runs.wait, so it runs first
	srv, err := mcp.New(mcp.Config{Agents: reg, Expose: exposure(cfg), Runner: webCfg.Runtime, Live: core.NewLive(stopRuns),
		Workflows: webCfg.Workflows, WorkflowRunner: webCfg.WorkflowRuntime, Store: store, Approvals: store, Version: version, Log: log})
	if err != nil {
		return err
	}
	defer srv.Close()
	log.Info("serving MCP on stdio", "agents", cfg.Agents, "exposed", cfg.Expose.Agents, "workflows", cfg.Expose.Workflows)
	return srv.ServeStdio(ctx, stdio{s.stdin}, nopCloser{s.stdout})
}

// stdio makes the session's stdin an io.ReadCloser for the transport.
type stdio struct{ io.Reader }

func (stdio) Close() error { return nil }

// nopCloser keeps the transport from closing the session's stdout.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
