package main

import (
	"context"
	"log/slog"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/cmd/agentry/followup"
	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// conversationEnv is what a conversation's runs share (chat, run
// --continue): the agents, the trace store and recorder, and one runtime,
// so the runs of a chat share its sliding window of tool calls; with
// engine: temporal, its runs are submitted to Temporal instead.
type conversationEnv struct {
	followup.Runner
	reg *registry.Registry
	// close closes it all once the runs have ended; a trace not all
	// written is said on stderr and is exitCode(1) (finishTrace).
	close func() error
}

// openConversation opens what a conversation's runs share. Its runs are
// recorded, exported to OTLP and join TRACEPARENT as run's are
// (openRuntime): the returned context carries the caller's trace to model
// calls, and ends on Ctrl-C or SIGTERM. A non-nil asker answers their
// asked calls first, as run's.
func (s *session) openConversation(ctx context.Context, cfg config.Config, asJSON bool, asker control.Asker) (context.Context, *conversationEnv, error) {
	reg, closeAgents, err := s.openAgents(ctx, cfg, false)
	if err != nil {
		return ctx, nil, err
	}
	store, err := openStore(cfg.DB)
	if err != nil {
		closeAgents()
		return ctx, nil, err
	}
	s.recordVersions(ctx, store, reg.Snapshot())
	ctx, live, err := s.openRuntime(ctx, cfg, reg, runtimeSpec{store: store, asker: asker, sinks: []trace.Sink{s.progress(asJSON)}, join: true})
	if err != nil {
		store.Close()
		closeAgents()
		return ctx, nil, err
	}
	env := &conversationEnv{Runner: followup.Runner{Store: store, Run: live.rt.Run}, reg: reg, close: func() error {
		err := s.finishTrace(live.close())
		store.Close()
		closeAgents()
		return err
	}}
	if cfg.Engine == config.EngineTemporal {
		if err := s.conversationOnTemporal(ctx, cfg, env, store, live.rtLog, asJSON, asker); err != nil {
			env.close()
			return ctx, nil, err
		}
	}
	return ctx, env, nil
}

// conversationOnTemporal sends a conversation's runs to Temporal: each
// message is a run submitted with the conversation so far, read from the
// trace store as in-process; its progress is printed from the store, and
// its new messages are recorded in the conversation by this process when
// it ends, as in-process. Its approvals are answered by asker (relayed,
// as for run on Temporal), `agentry approvals` or serve's pages.
func (s *session) conversationOnTemporal(ctx context.Context, cfg config.Config, env *conversationEnv, store traceDB, logger *slog.Logger, asJSON bool, asker control.Asker) error {
	eng, err := temporal.Dial(ctx, cfg.TemporalEngine(), logger)
	if err != nil {
		return err
	}
	closeLocal := env.close
	env.close = func() error { eng.Close(); return closeLocal() }
	env.Run = func(ctx context.Context, req delegation.Request) (delegation.Result, error) {
		// ctx ends on Ctrl-C (openRuntime), as submitRun's own watch does:
		// were it handed on, the watch could find it ended first and leave
		// the workflow running. Without its cancellation, the watch cancels
		// the workflow and the run ends when the workflow has, as run's.
		res, err := s.submitRun(context.WithoutCancel(ctx), eng, store, req, cfg.Delegation.Timeout.D(), asJSON, asker, logger)
		if err != nil && res.Error != "" {
			return res, nil // the run ended badly: printed as a result, as in-process
		}
		return res, err
	}
	return nil
}
