package main

import (
	"bufio"
	"cmp"
	"fmt"
	"strings"

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
		RunE: s.with(configOnly, func(cmd *cobra.Command, args []string, o *opened) (err error) {
			cfg := o.cfg
			ctx, env, err := s.openConversation(cmd.Context(), cfg, false, s.askElsewhere(cfg)) // ctx ends on Ctrl-C
			if err != nil {
				return err
			}
			defer func() { err = cmp.Or(err, env.close()) }() // a failure of the command's own says more
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
