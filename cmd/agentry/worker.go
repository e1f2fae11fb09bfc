package main

import (
	"cmp"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/delegation/temporal"
)

// workerCommand serves runs from the task queue: the same runtime as an
// in-process run (agents, models, tools, MCP servers, hooks), its steps
// called by Temporal, its spans written to the same trace database.
func (s *session) workerCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "serve runs from Temporal's task queue (engine: temporal)",
		Args:  noArgs,
		RunE: s.with(watchedAgents|traceStore, func(cmd *cobra.Command, args []string, o *opened) (err error) {
			ctx, cfg, reg, store := cmd.Context(), o.cfg, o.reg, o.store
			s.recordVersions(ctx, store, reg.Snapshot())
			// Spans go out over OTLP from the workers, as from an in-process run.
			// Calls that ask wait for rows in the store (delegation/temporal/approval.go).
			ctx, live, err := s.openRuntime(ctx, cfg, reg, runtimeSpec{store: store})
			if err != nil {
				return err
			}
			// A trace the worker could not all write fails it, as it fails a run.
			defer func() { err = cmp.Or(err, s.finishTrace(live.close())) }()
			logger := s.warnLog()
			eng, err := temporal.Dial(ctx, cfg.TemporalEngine(), logger)
			if err != nil {
				return err
			}
			defer eng.Close()
			t := eng.Config()
			return eng.Serve(ctx, &temporal.Activities{Steps: live.rt.Steps(), Flush: live.rec.Flush}, func() {
				fmt.Fprintf(s.stdout, "agentry worker: serving task queue %q of namespace %q at %s\n", t.TaskQueue, t.Namespace, t.Address)
			})
		}),
	}
	addConfigFlags(cmd.Flags(), "agents", "db")
	return cmd
}
