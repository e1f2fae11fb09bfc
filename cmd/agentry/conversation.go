package main

import (
	"context"
	"log/slog"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/cmd/agentry/followup"
	"github.com/agentry/agentry/delegation"
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
	reg   *registry.Registry
	close func()
}

// openConversation opens what a conversation's runs share. Its runs are
// exported to OTLP and join TRACEPARENT as run's are (withOtel): the
// returned context carries the caller's trace to model calls.
func (s *session) openConversation(ctx context.Context, cfg config.Config, asJSON bool) (context.Context, *conversationEnv, error) {
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
	logger := s.warnLog()
	rec := trace.NewRecorder(store, trace.RecorderConfig{Logger: logger})
	closeAll := func() {
		rec.Close(context.Background())
		store.Close()
		closeAgents()
	}
	ctx, sink, otelDone, err := s.withOtel(ctx, cfg, trace.Tee(rec, s.progress(asJSON)), logger, true)
	if err != nil {
		closeAll()
		return ctx, nil, configError{err}
	}
	rt, stopTools, err := s.newRuntime(ctx, cfg, reg, sink, logger)
	if err != nil {
		otelDone()
		closeAll()
		return ctx, nil, err
	}
	env := &conversationEnv{Runner: followup.Runner{Store: store, Run: rt.Run}, reg: reg, close: func() {
		stopTools()
		otelDone()
		closeAll()
	}}
	if cfg.Engine == config.EngineTemporal {
		if err := s.conversationOnTemporal(ctx, cfg, env, store, logger, asJSON); err != nil {
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
// it ends, as in-process. Its approvals are answered from `agentry
// approvals` or serve's pages.
func (s *session) conversationOnTemporal(ctx context.Context, cfg config.Config, env *conversationEnv, store traceDB, logger *slog.Logger, asJSON bool) error {
	eng, err := temporal.Dial(ctx, cfg.TemporalEngine(), logger)
	if err != nil {
		return err
	}
	closeLocal := env.close
	env.close = func() { eng.Close(); closeLocal() }
	env.Run = func(ctx context.Context, req delegation.Request) (delegation.Result, error) {
		res, err := s.submitRun(ctx, eng, store, req, cfg.Delegation.Timeout.D(), asJSON, nil, logger)
		if err != nil && res.Error != "" {
			return res, nil // the run ended badly: printed as a result, as in-process
		}
		return res, err
	}
	return nil
}
