package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/trace/approval"
)

// approvalsDenyCommand is `agentry approvals deny ID --reason TEXT`: the
// agent is told the reason.
func (s *session) approvalsDenyCommand() *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "deny ID --reason TEXT",
		Short: "deny a waiting call, telling the agent why",
		Args: func(cmd *cobra.Command, args []string) error {
			if err := oneApproval(cmd, args); err != nil {
				return err
			}
			if strings.TrimSpace(reason) == "" {
				return usage(cmd, "deny needs --reason TEXT: the agent is told why")
			}
			return nil
		},
		ValidArgsFunction: firstArg(s.pendingIDs),
		RunE: s.withApprovals(func(cmd *cobra.Command, args []string, o *opened) error {
			return s.answer(cmd, o, args[0], approval.Answer{Note: strings.TrimSpace(reason)})
		}),
	}
	cmd.Flags().StringVar(&reason, "reason", "", "the `TEXT` the agent is told")
	return cmd
}
