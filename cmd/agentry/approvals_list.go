package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/delegation/progress"
	"github.com/agentry/agentry/trace/approval"
)

// approvalsListCommand is `agentry approvals list`: the calls waiting for
// an answer (--all: answered ones too).
func (s *session) approvalsListCommand() *cobra.Command {
	var runID string
	var all bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "list the calls waiting for an answer",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f := approval.Filter{RunID: runID, Status: approval.Pending}
			if all {
				f.Status = ""
			}
			list, err := s.approvals(cmd, f)
			if err != nil {
				return err
			}
			return s.jsonOrText(cmd, orEmpty(list), func() { printApprovals(s.stdout, list) })
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&runID, "run", "", "only the approvals of `RUN_ID`")
	fs.BoolVar(&all, "all", false, "answered approvals too, not only pending ones")
	jsonFlag(cmd.Flags(), nil, "print JSON")
	return cmd
}

// approvals are the approvals f matches; with no trace database yet, none
// (and none is created).
func (s *session) approvals(cmd *cobra.Command, f approval.Filter) ([]approval.Approval, error) {
	o, err := s.open(cmd, readStore)
	if errors.As(err, &noDBError{}) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer o.Close()
	return o.store.Approvals(cmd.Context(), f)
}

// printApprovals lists approvals, each with the call it asks about and,
// once answered, the answer.
func printApprovals(w io.Writer, list []approval.Approval) {
	if len(list) == 0 {
		fmt.Fprintln(w, "no approvals waiting")
	}
	for _, a := range list {
		fmt.Fprintf(w, "%s  %-8s  %s  run %s  %s wants %s %s\n    %s\n", a.ID, a.Status, a.RequestedAt.Local().Format("2006-01-02 15:04:05"),
			a.RunID, a.Agent, a.Tool, progress.OneLine(a.Arguments, 160), a.Reason)
		if a.Status != approval.Pending && a.Note != "" {
			fmt.Fprintf(w, "    %s by %s: %s\n", a.Status, a.DecidedBy, a.Note)
		} else if a.Status != approval.Pending {
			fmt.Fprintf(w, "    %s by %s\n", a.Status, a.DecidedBy)
		}
	}
}
