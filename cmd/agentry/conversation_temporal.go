package main

import (
	"context"
	"log/slog"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/temporal"
)

// conversationOnTemporal sends a conversation's runs (chat, run
// --continue) to Temporal: each message is a run submitted with the
// conversation so far, read from the trace store as in-process; its
// progress is printed from the store, and its new messages are recorded
// in the conversation by this process when it ends, as in-process. Its
// approvals are answered from `agentry approvals` or serve's pages.
func (s *session) conversationOnTemporal(ctx context.Context, cfg Config, env *conversationEnv, logger *slog.Logger, asJSON bool) error {
	eng, err := temporal.Dial(ctx, cfg.temporal(), logger)
	if err != nil {
		return err
	}
	closeLocal := env.close
	env.close = func() { eng.Close(); closeLocal() }
	env.run = func(ctx context.Context, req delegation.Request) (delegation.Result, error) {
		res, err := s.submitRun(ctx, eng, env.store, req, cfg.Delegation.Timeout, asJSON, nil, logger)
		if err != nil && res.Error != "" {
			return res, nil // the run ended badly: printed as a result, as in-process
		}
		return res, err
	}
	return nil
}
