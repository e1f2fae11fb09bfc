package main

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/trace"
)

// chatCommand is `agentry chat AGENT`: a conversation in the terminal, one
// run per line typed, until end of input or /exit (package conversation).
func (s *session) chatCommand() *cobra.Command {
	var modelSpec string
	cmd := &cobra.Command{
		Use:               "chat AGENT",
		Short:             "talk with an agent in the terminal: each line a follow-up run of one conversation",
		Args:              oneArg("needs exactly one AGENT"),
		ValidArgsFunction: firstArg(s.agentIDs),
		RunE: s.with(configOnly, func(cmd *cobra.Command, args []string, o *opened) error {
			cfg := o.cfg
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ctx, env, err := s.openConversation(ctx, cfg, false)
			if err != nil {
				return err
			}
			defer env.close()
			if err := s.checkStart(env.reg.Snapshot(), cfg, args[0], modelSpec); err != nil {
				return err
			}
			fmt.Fprintf(s.stdout, "chat with %s: one message per line; end with /exit or Ctrl-D\n", args[0])
			in := bufio.NewScanner(s.stdin)
			in.Buffer(make([]byte, 64*1024), 1<<20)
			conv, status := "", trace.StatusOK
			for fmt.Fprint(s.stdout, "> "); in.Scan(); fmt.Fprint(s.stdout, "> ") {
				line := strings.TrimSpace(in.Text())
				if line == "/exit" {
					break
				}
				if line == "" {
					continue
				}
				res, err := env.Turn(ctx, args[0], conv, line, modelSpec)
				if err != nil {
					return err
				}
				conv, status = res.Conversation, res.Status
				printResult(s.stdout, res, false)
				if ctx.Err() != nil {
					break
				}
			}
			fmt.Fprintln(s.stdout)
			if status != trace.StatusOK { // the last answer's
				return exitCode(1)
			}
			return nil
		}),
	}
	modelFlag(cmd.Flags(), &modelSpec, "conversation")
	addConfigFlags(cmd.Flags(), "agents", "db")
	return cmd
}
