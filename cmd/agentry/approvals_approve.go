package main

import (
	"github.com/spf13/cobra"

	"github.com/agentry/agentry/trace/approval"
)

// approvalsApproveCommand is `agentry approvals approve ID [--for-run]`.
func (s *session) approvalsApproveCommand() *cobra.Command {
	var forRun bool
	cmd := &cobra.Command{
		Use:               "approve ID",
		Short:             "approve a waiting call",
		Args:              oneApproval,
		ValidArgsFunction: firstArg(s.pendingIDs),
		RunE: s.withApprovals(func(cmd *cobra.Command, args []string, o *opened) error {
			return s.answer(cmd, o, args[0], approval.Answer{Approve: true, ForRun: forRun})
		}),
	}
	cmd.Flags().BoolVar(&forRun, "for-run", false, "also approve every later call of the same tool (or agent) in that run")
	return cmd
}
