package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/trace"
)

// tracesCommand lists, shows, exports and imports recorded runs; without a
// subcommand it lists them. Exit 0: done; 1: run not found, unreadable
// database or bad input; 2: usage. Its flags are its subcommands' too.
func (s *session) tracesCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "traces [list | show RUN_ID | export RUN_ID | import FILE | delete RUN_ID...]",
		Short: "list, show, export, import and delete run traces",
		RunE:  func(cmd *cobra.Command, args []string) error { return s.tracesList(cmd) },
	}
	fs := cmd.PersistentFlags()
	jsonFlag(fs, nil, "print JSON (list: an array of runs; show: the run document; delete: the runs deleted)")
	fs.String("agent", "", "list: only runs of this root `AGENT`")
	fs.String("status", "", "list: only runs with this `STATUS` (ok, error, running, interrupted, ...)")
	fs.String("text", "", "list: only runs whose task or result contains this `TEXT`")
	fs.Duration("since", 0, "list: only runs started within this long `AGO`, e.g. 24h")
	fs.Int("limit", trace.DefaultLimit, fmt.Sprintf("list: how many runs to show (`N`, at most %d), newest first", trace.MaxLimit))
	addConfigFlags(fs, "db")
	return cmd
}

// withRun is the RunE of a subcommand about one run: it opens the trace
// store to read and hands run RUN_ID's document.
func (s *session) withRun(run func(cmd *cobra.Command, o *opened, doc trace.Document) error) func(*cobra.Command, []string) error {
	return s.with(readStore, func(cmd *cobra.Command, args []string, o *opened) error {
		doc, err := o.store.Export(cmd.Context(), args[0])
		if err != nil {
			return err
		}
		return run(cmd, o, doc)
	})
}

// oneRunID is the Args of a subcommand about one run.
var oneRunID = oneArg("needs exactly one RUN_ID")

// recentRunIDs are the ids of the 50 newest runs, which a RUN_ID completes
// from.
func (s *session) recentRunIDs(cmd *cobra.Command) ([]string, error) {
	o, err := s.open(cmd, readStore)
	if err != nil {
		return nil, err
	}
	defer o.Close()
	page, err := o.store.Runs(cmd.Context(), trace.RunFilter{Limit: 50})
	var ids []string
	for _, r := range page.Runs {
		ids = append(ids, r.ID)
	}
	return ids, err
}
