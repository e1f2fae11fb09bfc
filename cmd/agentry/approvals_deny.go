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
	cmd := s.answerCommand("deny ID --reason TEXT", "deny a waiting call, telling the agent why", func(cmd *cobra.Command) (approval.Answer, error) {
		if strings.TrimSpace(reason) == "" {
			return approval.Answer{}, usage(cmd, "deny needs --reason TEXT: the agent is told why")
		}
		return approval.Answer{Note: strings.TrimSpace(reason)}, nil
	})
	cmd.Flags().StringVar(&reason, "reason", "", "the `TEXT` the agent is told")
	return cmd
}
