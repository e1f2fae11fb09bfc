package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/delegation/progress"
	"github.com/agentry/agentry/trace/approval"
)

func init() { register("approvals", approvalsListCommand) }

// approvalsListCommand is `agentry approvals list`: the calls waiting for
// an answer (--all: answered ones too).
func approvalsListCommand(s *session) *cobra.Command {
	var runID string
	var all, asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "list the calls waiting for an answer",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			store, _, done, err := s.openApprovals(cmd)
			if err != nil {
				return err
			}
			defer done()
			f := approval.Filter{RunID: runID, Status: approval.Pending}
			if all {
				f.Status = ""
			}
			list, err := store.Approvals(cmd.Context(), f)
			if err != nil {
				return err
			}
			if asJSON {
				if list == nil {
					list = []approval.Approval{}
				}
				return json.NewEncoder(s.stdout).Encode(list)
			}
			if len(list) == 0 {
				fmt.Fprintln(s.stdout, "no approvals waiting")
			}
			for _, a := range list {
				fmt.Fprintf(s.stdout, "%s  %-8s  %s  run %s  %s wants %s %s\n    %s\n", a.ID, a.Status, a.RequestedAt.Local().Format("2006-01-02 15:04:05"),
					a.RunID, a.Agent, a.Tool, progress.OneLine(a.Arguments, 160), a.Reason)
				if a.Status != approval.Pending {
					fmt.Fprintf(s.stdout, "    %s by %s %s\n", a.Status, a.DecidedBy, a.Note)
				}
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&runID, "run", "", "only the approvals of `RUN_ID`")
	fs.BoolVar(&all, "all", false, "answered approvals too, not only pending ones")
	fs.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
