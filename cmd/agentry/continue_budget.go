package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/agentry/agentry/delegation/control"
	"github.com/agentry/agentry/trace"
)

// budgetContinuation is `agentry run --continue RUN_ID` without a TASK: a
// run that stopped at its budget (status limit) starts again as a new run
// of the same agent, on the same model unless --model says otherwise,
// whose task is the old one with the old run's partial-progress report, so
// the agents pick up what was not done. Give it a larger --budget-*; the
// new run's budget counts from zero. This is a separate path from a
// conversation's follow-up (`--continue RUN_ID "follow-up"`), which has a
// TASK.
func (s *session) budgetContinuation(fs *flag.FlagSet, runID, model string) (args []string, spec string, err error) {
	cfg, err := s.loadConfig(fs)
	if err != nil {
		return nil, "", err
	}
	store, err := openStore(cfg.DB)
	if err != nil {
		return nil, "", err
	}
	defer store.Close()
	prev, err := store.Run(context.Background(), runID)
	if err != nil {
		return nil, "", fmt.Errorf("continue: %w", err)
	}
	if prev.Status != trace.StatusLimit {
		return nil, "", fmt.Errorf("continue: run %s ended %s, not at its budget; only a run stopped by its budget continues without a TASK", runID, prev.Status)
	}
	if model == "" {
		model = prev.Model
	}
	return []string{prev.Agent, control.ContinuationTask(prev)}, model, nil
}
