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

func init() { register("", approvalsCommand) }

// approvalsCommand is `agentry approvals list|approve ID|deny ID --reason
// TEXT`: the calls that wait for a person, from any process of this trace
// store (docs/approvals.md).
func approvalsCommand(s *session) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "approvals COMMAND",
		Short: "list and answer the calls that wait for a person's approval",
	}
	addConfigFlags(cmd.PersistentFlags(), "db")
	return cmd
}

// openApprovals opens the trace store of cmd's configuration as an
// approval store; done closes it.
func (s *session) openApprovals(cmd *cobra.Command) (store approval.Store, cfg config.Config, done func(), err error) {
	if cfg, err = s.loadConfig(cmd); err != nil {
		return nil, cfg, nil, err
	}
	st, err := openStore(cfg.DB)
	if err != nil {
		return nil, cfg, nil, err
	}
	return st, cfg, func() { st.Close() }, nil
}

// answer is `approvals approve` and `approvals deny`: the first answer to
// approval id wins, and with engine: temporal the waiting run is told at once.
func (s *session) answer(cmd *cobra.Command, id string, ans approval.Answer) error {
	store, cfg, done, err := s.openApprovals(cmd)
	if err != nil {
		return err
	}
	defer done()
	ans.By, ans.At = "cli", time.Now()
	if u := s.getenv("USER"); u != "" {
		ans.By = "cli:" + u
	}
	a, err := store.DecideApproval(cmd.Context(), id, ans)
	if errors.Is(err, approval.ErrDecided) {
		return fmt.Errorf("approval %s was already answered: %s by %s", a.ID, a.Status, a.DecidedBy)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(s.stdout, "%s %s: %s %s (run %s)\n", a.Status, a.ID, a.Agent, a.Tool, a.RunID)
	if cfg.Engine == config.EngineTemporal {
		if err := answer.Notify(cmd.Context(), cfg.TemporalEngine(), a); err != nil {
			fmt.Fprintf(s.stderr, "⚠ warning: could not signal the run on Temporal (%v); it reads the answer within %s\n", err, temporal.MaxApprovalPoll)
		}
	}
	return nil
}

// oneApproval checks that a subcommand was given one approval ID.
func oneApproval(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usage(cmd, "%s needs exactly one approval ID", commandName(cmd))
	}
	return nil
}

// completePending offers the ids of the approvals waiting for an answer.
func (s *session) completePending(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return names(func() ([]string, error) {
		store, _, done, err := s.openApprovals(cmd)
		if err != nil {
			return nil, err
		}
		defer done()
		list, err := store.Approvals(cmd.Context(), approval.Filter{Status: approval.Pending})
		var ids []string
		for _, a := range list {
			ids = append(ids, a.ID)
		}
		return ids, err
	})(cmd, args, toComplete)
}
