package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/postgres"
)

func init() { register("", tracesCommand) }

// tracesCommand lists, shows, exports and imports recorded runs; without a
// subcommand it lists them. Exit 0: done; 1: run not found, unreadable
// database or bad input; 2: usage. Its flags are its subcommands' too.
func tracesCommand(s *session) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "traces [list | show RUN_ID | export RUN_ID | import FILE]",
		Short: "list, show, export and import run traces",
		RunE:  func(cmd *cobra.Command, args []string) error { return s.tracesList(cmd) },
	}
	fs := cmd.PersistentFlags()
	fs.Bool("json", false, "print JSON (list: an array of runs; show: the run document)")
	fs.String("agent", "", "list: only runs of this root `AGENT`")
	fs.String("status", "", "list: only runs with this `STATUS` (ok, error, running, interrupted, ...)")
	fs.String("text", "", "list: only runs whose task or result contains this `TEXT`")
	fs.Duration("since", 0, "list: only runs started within this long `AGO`, e.g. 24h")
	fs.Int("limit", 50, "list: how many runs to show (`N`), newest first")
	addConfigFlags(fs, "db")
	return cmd
}

// noDBError is a read of runs with no SQLite database yet: no runs.
type noDBError struct{ path string }

func (e noDBError) Error() string {
	return fmt.Sprintf("no trace database at %s, so no such run", e.path)
}

// openTraces opens the trace store of cmd's configuration to read runs,
// creating no database where there is none (noDBError).
func (s *session) openTraces(cmd *cobra.Command) (traceDB, config.Config, error) {
	cfg, err := s.loadConfig(cmd)
	if err != nil {
		return nil, cfg, err
	}
	if !postgres.IsURL(cfg.DB) {
		if _, err := os.Stat(cfg.DB); errors.Is(err, os.ErrNotExist) {
			return nil, cfg, noDBError{cfg.DB}
		}
	}
	store, err := openStore(cfg.DB)
	return store, cfg, err
}

// withRun opens the trace store and reads run id's document for use.
func (s *session) withRun(cmd *cobra.Command, id string, use func(trace.Store, config.Config, trace.Document) error) error {
	store, cfg, err := s.openTraces(cmd)
	if err != nil {
		return err
	}
	defer store.Close()
	doc, err := store.Export(cmd.Context(), id)
	if err != nil {
		return err
	}
	return use(store, cfg, doc)
}

// oneRunID checks that a subcommand was given one RUN_ID.
func oneRunID(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usage(cmd, "%s needs exactly one RUN_ID", commandName(cmd))
	}
	return nil
}

// completeRunIDs offers the ids of the newest runs for a RUN_ID argument.
func (s *session) completeRunIDs(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return names(func() ([]string, error) {
		store, _, err := s.openTraces(cmd)
		if err != nil {
			return nil, err
		}
		defer store.Close()
		page, err := store.Runs(cmd.Context(), trace.RunFilter{Limit: 50})
		var ids []string
		for _, r := range page.Runs {
			ids = append(ids, r.ID)
		}
		return ids, err
	})(cmd, args, toComplete)
}
