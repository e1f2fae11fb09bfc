package main

import (
	"cmp"
	"context"
	"fmt"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/cmd/agentry/followup"
	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/trace"
)

// `agentry run --continue RUN_ID` has two meanings, told apart by a TASK.

// followUp is `agentry run --continue RUN_ID FOLLOW-UP`: a new run of
// RUN_ID's agent in RUN_ID's conversation (package conversation), its
// asked calls answered by asker first, as run's.
func (s *session) followUp(ctx context.Context, cfg config.Config, runID, text, modelSpec string, asJSON bool, asker control.Asker) (err error) {
	ctx, env, err := s.openConversation(ctx, cfg, asJSON, asker) // ctx ends on Ctrl-C
	if err != nil {
		return err
	}
	defer func() { err = cmp.Or(err, env.close()) }() // a failure of the command's own says more
	conv, agent, err := followup.Of(ctx, env.Store, runID)
	if err == nil {
		err = ofACommand(agent, "continued")
	}
	if err != nil {
		return s.refused(err, asJSON)
	}
	res, err := env.Turn(ctx, agent, conv, text, modelSpec)
	if err != nil && res.RunID == "" { // it did not start
		return s.refused(err, asJSON)
	}
	printResult(s.stdout, res, asJSON)
	if err != nil { // it ran, but cannot be replied to
		return err
	}
	return resultCode(res)
}

// budgetContinuation is `agentry run --continue RUN_ID` without a TASK: a
// run that stopped at its budget (status limit) starts again as a new run
// of the same agent, on the same model unless --model says otherwise,
// whose task is the old one with the old run's partial-progress report, so
// the agents pick up what was not done. Give it a larger --budget-*; the
// new run's budget counts from zero.
func budgetContinuation(ctx context.Context, cfg config.Config, runID, model string) (args []string, spec string, err error) {
	store, err := openStore(cfg.DB)
	if err != nil {
		return nil, "", err
	}
	defer store.Close()
	prev, err := store.Run(ctx, runID)
	if err != nil {
		return nil, "", fmt.Errorf("continue: %w", err)
	}
	if err := ofACommand(prev.Agent, "continued"); err != nil {
		return nil, "", err
	}
	if prev.Status != trace.StatusLimit {
		return nil, "", fmt.Errorf("continue: run %s ended %s, not at its budget; only a run stopped by its budget continues without a TASK", runID, prev.Status)
	}
	if model == "" {
		model = prev.Model
	}
	return []string{prev.Agent, control.ContinuationTask(prev)}, model, nil
}
