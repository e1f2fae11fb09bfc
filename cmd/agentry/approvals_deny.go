package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/trace/approval"
)

func init() { register("approvals", approvalsDenyCommand) }

// approvalsDenyCommand is `agentry approvals deny ID --reason TEXT`: the
// agent is told the reason.
func approvalsDenyCommand(s *session) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:               "deny ID --reason TEXT",
		Short:             "deny a waiting call, telling the agent why",
		Args:              oneApproval,
		ValidArgsFunction: s.completePending,
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(reason) == "" {
				return usage(cmd, "deny needs --reason TEXT: the agent is told why")
			}
			return s.answer(cmd, args[0], approval.Answer{Note: strings.TrimSpace(reason)})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "the `TEXT` the agent is told")
	return cmd
}
