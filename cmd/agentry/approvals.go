package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/cmd/agentry/answer"
	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/trace/approval"
)

// approvalsCommand is `agentry approvals list|approve ID|deny ID --reason
// TEXT`: the calls that wait for a person, from any process of this trace
// store (docs/approvals.md).
func (s *session) approvalsCommand() *cobra.Command {
	return group("approvals COMMAND",
		"list and answer the calls that wait for a person's approval",
		"db")
}

// answerCommand is `approvals approve` or `approvals deny`: they take one
// pending approval's ID and differ only in the answer their flags make
// (answerOf; its error, a usage error, comes before the trace store opens).
// With no trace database yet there is no approval to answer, and none is
// created.
func (s *session) answerCommand(use, short string, answerOf func(cmd *cobra.Command) (approval.Answer, error)) *cobra.Command {
	return &cobra.Command{
		Use:               use,
		Short:             short,
		Args:              oneArg("needs exactly one approval ID"),
		ValidArgsFunction: firstArg(s.pendingIDs),
		RunE: func(cmd *cobra.Command, args []string) error {
			ans, err := answerOf(cmd)
			if err != nil {
				return err
			}
			o, err := s.open(cmd, readStore)
			if noDB, ok := errors.AsType[noDBError](err); ok {
				noDB.what = "approval"
				return noDB
			}
			if err != nil {
				return err
			}
			defer o.Close()
			return s.answer(cmd, o, args[0], ans)
		},
	}
}

// answer gives approval id the answer ans: the first answer wins, and with
// engine: temporal the waiting run is told at once.
func (s *session) answer(cmd *cobra.Command, o *opened, id string, ans approval.Answer) error {
	ans.By, ans.At = "cli", time.Now()
	if u := s.getenv("USER"); u != "" {
		ans.By = "cli:" + u
	}
	a, err := o.store.DecideApproval(cmd.Context(), id, ans)
	if errors.Is(err, approval.ErrDecided) {
		return fmt.Errorf("approval %s was already answered: %s by %s", a.ID, a.Status, a.DecidedBy)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(s.stdout, "%s %s: %s %s (run %s)\n", a.Status, a.ID, a.Agent, a.Tool, a.RunID)
	if o.cfg.Engine == config.EngineTemporal {
		if err := answer.Notify(cmd.Context(), o.cfg.TemporalEngine(), a); err != nil {
			fmt.Fprintf(s.stderr, "⚠ warning: could not signal the run on Temporal (%v); it reads the answer within %s\n", err, temporal.MaxApprovalPoll)
		}
	}
	return nil
}

// pendingIDs are the ids of the approvals waiting for an answer, which an
// approval ID argument completes from.
func (s *session) pendingIDs(cmd *cobra.Command) ([]string, error) {
	list, err := s.approvals(cmd, approval.Filter{Status: approval.Pending})
	var ids []string
	for _, a := range list {
		ids = append(ids, a.ID)
	}
	return ids, err
}
