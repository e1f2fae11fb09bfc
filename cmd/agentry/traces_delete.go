package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/trace"
)

// tracesDeleteCommand is `agentry traces delete RUN_ID... | --older-than
// AGO`: the trace database keeps every run until one is deleted here, so
// this is its retention. A run still going is never deleted: its spans
// would keep arriving for a run no longer there.
func (s *session) tracesDeleteCommand() *cobra.Command {
	var olderThan time.Duration
	cmd := &cobra.Command{
		Use:               "delete RUN_ID... | --older-than AGO",
		Short:             "delete runs and their spans from the trace database",
		ValidArgsFunction: names(s.recentRunIDs),
		Args: func(cmd *cobra.Command, args []string) error {
			if (len(args) == 0) == (olderThan == 0) {
				return usage(cmd, "%s needs RUN_IDs or --older-than AGO (e.g. 720h), not both", commandName(cmd))
			}
			if olderThan < 0 {
				return usage(cmd, "%s --older-than must be positive, got %s", commandName(cmd), olderThan)
			}
			return nil
		},
		RunE: s.with(readStore, func(cmd *cobra.Command, args []string, o *opened) error {
			ids := args
			if olderThan > 0 {
				var err error
				if ids, err = runsBefore(cmd.Context(), o.store, time.Now().Add(-olderThan)); err != nil {
					return err
				}
			}
			deleted, err := deleteRuns(cmd.Context(), o.store, ids)
			if jerr := s.jsonOrText(cmd, struct {
				Deleted []string `json:"deleted"`
			}{orEmpty(deleted)}, func() {
				for _, id := range deleted {
					fmt.Fprintf(s.stdout, "deleted run %s\n", id)
				}
				if len(deleted) == 0 && err == nil {
					fmt.Fprintln(s.stderr, "no run to delete")
				}
			}); jerr != nil {
				return jerr
			}
			return err
		}),
	}
	cmd.Flags().DurationVar(&olderThan, "older-than", 0, "delete every finished run that started longer than `AGO` ago, e.g. 720h")
	return cmd
}

// runsBefore lists the runs started before t that have ended, newest
// first, following the listing's pages to the end.
func runsBefore(ctx context.Context, store trace.Store, t time.Time) ([]string, error) {
	var ids []string
	f := trace.RunFilter{Until: t, Limit: trace.MaxLimit}
	for {
		page, err := store.Runs(ctx, f)
		if err != nil {
			return ids, err
		}
		for _, r := range page.Runs {
			if r.Status != trace.StatusRunning {
				ids = append(ids, r.ID)
			}
		}
		if page.Next == "" {
			return ids, nil
		}
		f.Cursor = page.Next
	}
}

// deleteRuns deletes each run that has ended and returns those it
// deleted; a run not found or still going is an error naming it, and the
// others are deleted all the same.
func deleteRuns(ctx context.Context, store trace.Store, ids []string) ([]string, error) {
	var deleted []string
	var errs []error
	for _, id := range ids {
		r, err := store.Run(ctx, id)
		if err == nil && r.Status == trace.StatusRunning {
			err = fmt.Errorf("run %s is still running: cancel it first (agentry traces show %s)", id, id)
		}
		if err == nil {
			err = store.Delete(ctx, id)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		deleted = append(deleted, id)
	}
	return deleted, errors.Join(errs...)
}
