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

// answer is `approvals approve` and `approvals deny`: the first answer to
// approval id wins, and with engine: temporal the waiting run is told at once.
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

// withApprovals is s.with(readStore, run) for a command that answers an
// approval: with no trace database yet there is no approval to answer,
// and none is created.
func (s *session) withApprovals(run func(cmd *cobra.Command, args []string, o *opened) error) func(*cobra.Command, []string) error {
	withStore := s.with(readStore, run)
	return func(cmd *cobra.Command, args []string) error {
		err := withStore(cmd, args)
		if noDB, ok := errors.AsType[noDBError](err); ok {
			noDB.what = "approval"
			return noDB
		}
		return err
	}
}

// oneApproval is the Args of a subcommand that answers one approval.
var oneApproval = oneArg("needs exactly one approval ID")

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
