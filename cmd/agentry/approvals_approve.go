package main

import (
	"github.com/spf13/cobra"

	"github.com/agentry/agentry/trace/approval"
)

// approvalsApproveCommand is `agentry approvals approve ID [--for-run]`.
func (s *session) approvalsApproveCommand() *cobra.Command {
	var forRun bool
	cmd := s.answerCommand("approve ID", "approve a waiting call", func(*cobra.Command) (approval.Answer, error) {
		return approval.Answer{Approve: true, ForRun: forRun}, nil
	})
	cmd.Flags().BoolVar(&forRun, "for-run", false, "also approve every later call of the same tool (or agent) in that run")
	return cmd
}
