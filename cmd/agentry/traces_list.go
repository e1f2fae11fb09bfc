package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/trace"
)

// tracesListCommand is `agentry traces list`, what `agentry traces` does
// alone: the runs, newest first, filtered by traces' flags.
func (s *session) tracesListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "list the recorded runs, newest first",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return s.tracesList(cmd) },
	}
}

func (s *session) tracesList(cmd *cobra.Command) error {
	fs := cmd.Flags()
	var f trace.RunFilter
	f.Agent, _ = fs.GetString("agent")
	f.Text, _ = fs.GetString("text")
	f.Limit, _ = fs.GetInt("limit")
	if f.Limit < 1 || f.Limit > trace.MaxLimit {
		return usage(cmd, "--limit must be from 1 to %d, got %d", trace.MaxLimit, f.Limit)
	}
	status, _ := fs.GetString("status")
	if f.Status = trace.Status(status); f.Status != "" && !f.Status.IsKnown() {
		return usage(cmd, "unknown status %q (%s)", f.Status, knownStatuses())
	}
	if since, _ := fs.GetDuration("since"); since > 0 {
		f.Since = time.Now().Add(-since)
	}
	asJSON, _ := fs.GetBool("json")
	o, err := s.open(cmd, readStore)
	var noDB noDBError
	if errors.As(err, &noDB) {
		if asJSON {
			fmt.Fprintln(s.stdout, "[]")
		} else {
			fmt.Fprintf(s.stderr, "no runs recorded yet (no trace database at %s)\n", noDB.path)
		}
		return nil
	}
	if err != nil {
		return err
	}
	defer o.Close()
	page, err := o.store.Runs(cmd.Context(), f)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(s.stdout, orEmpty(page.Runs))
	}
	if len(page.Runs) == 0 {
		fmt.Fprintln(s.stderr, "no runs match")
		return nil
	}
	tw := tabwriter.NewWriter(s.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tDURATION\tSTATUS\tAGENT\tTASK")
	for _, r := range page.Runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.StartedAt.Local().Format("2006-01-02 15:04:05"),
			traceDuration(r.StartedAt, r.EndedAt), r.Status, r.Agent, traceLine(r.Task, 60))
	}
	tw.Flush()
	if page.More {
		fmt.Fprintf(s.stderr, "more runs match; use --limit or filters to see them\n")
	}
	return nil
}

// knownStatuses lists the statuses --status accepts, comma-separated.
func knownStatuses() string {
	names := make([]string, 0, 8)
	for _, st := range trace.Statuses() {
		names = append(names, string(st))
	}
	return strings.Join(names, ", ")
}
