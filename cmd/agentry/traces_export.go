package main

import (
	"cmp"
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/otlp"
	"github.com/agentry/agentry/web/core"
)

// tracesExportCommand is `agentry traces export RUN_ID`: the run's
// document as JSON, which `traces import` reads back; with --otlp, the
// run sent to the OpenTelemetry collector instead.
func (s *session) tracesExportCommand() *cobra.Command {
	var toOTLP bool
	cmd := &cobra.Command{
		Use:               "export RUN_ID",
		Short:             "print a run's document as JSON, or send it to the OTLP collector",
		Args:              oneRunID,
		ValidArgsFunction: firstArg(s.recentRunIDs),
		RunE: s.withRun(func(cmd *cobra.Command, o *opened, doc trace.Document) error {
			if !toOTLP {
				return writeJSON(s.stdout, doc)
			}
			oc, err := s.otelConfig(o.cfg, slog.New(slog.DiscardHandler)) // the error below says it all
			if err != nil {
				return configError{err}
			}
			if !oc.Enabled() {
				return fmt.Errorf("traces export --otlp: no collector configured: set %s or otel.endpoint", otlp.EnvEndpoint)
			}
			n, err := otlp.Export(cmd.Context(), oc, doc.Spans)
			if err != nil {
				return err
			}
			fmt.Fprintf(s.stderr, "sent %s of run %s to %s\n", core.Count(n, "span"), doc.Run.ID, cmp.Or(oc.TracesEndpoint, oc.Endpoint))
			return nil
		}),
	}
	cmd.Flags().BoolVar(&toOTLP, "otlp", false, "send the run to the OTLP collector (otel: or OTEL_EXPORTER_OTLP_ENDPOINT) instead of printing it")
	return cmd
}
