package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/trace"
)

// workerCommand serves runs from the task queue: the same runtime as an
// in-process run (agents, models, tools, MCP servers, hooks), its steps
// called by Temporal, its spans written to the same trace database.
func (s *session) workerCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "serve runs from Temporal's task queue (engine: temporal)",
		Args:  noArgs,
		RunE: s.with(watchedAgents|traceStore, func(cmd *cobra.Command, args []string, o *opened) error {
			ctx, cfg, reg, store := cmd.Context(), o.cfg, o.reg, o.store
			s.recordVersions(ctx, store, reg.Snapshot())
			logger := s.warnLog()
			rec := trace.NewRecorder(store, trace.RecorderConfig{Logger: logger})
			defer rec.Close(context.Background())
			// Spans go out over OTLP from the workers, as from an in-process run.
			ctx, sink, otelDone, err := s.withOtel(ctx, cfg, rec, logger, false)
			if err != nil {
				return configError{err}
			}
			defer otelDone()
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			// Calls that ask wait for rows in the store (delegation/temporal/approval.go).
			rt, stopTools, err := s.newRuntime(ctx, cfg, reg, sink, logger, func(c *delegation.Config) { c.Approvals = store })
			if err != nil {
				return err
			}
			defer stopTools()
			eng, err := temporal.Dial(ctx, cfg.TemporalEngine(), logger)
			if err != nil {
				return err
			}
			defer eng.Close()
			t := eng.Config()
			return eng.Serve(ctx, &temporal.Activities{Steps: rt.Steps(), Flush: rec.Flush}, func() {
				fmt.Fprintf(s.stdout, "agentry worker: serving task queue %q of namespace %q at %s\n", t.TaskQueue, t.Namespace, t.Address)
			})
		}),
	}
	addConfigFlags(cmd.Flags(), "agents", "db")
	return cmd
}
