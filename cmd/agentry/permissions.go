package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/delegation/a2a"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
)

// permissionsCommand prints what AGENT may use and call on a chain, and why.
func (s *session) permissionsCommand() *cobra.Command {
	var via []string
	cmd := &cobra.Command{
		Use:               "permissions AGENT [--via PARENT,...]",
		Short:             "show an agent's effective tools and sub-agents, with reasons",
		Args:              oneAgentViaFlag,
		ValidArgsFunction: firstArg(s.agentIDs),
		RunE: s.with(agentsFolder, func(cmd *cobra.Command, args []string, o *opened) error {
			cfg, snap := o.cfg, o.reg.Snapshot()
			s.recordVersionsIfStored(cmd.Context(), cfg, snap)
			var chain []string
			for _, name := range via {
				if name = strings.TrimSpace(name); name != "" {
					chain = append(chain, name)
				}
			}
			// The remote agents with an id: reading cards is run's and
			// serve's, not a quick local command's (docs/a2a.md).
			remote := a2a.Offline(a2aAgents(cfg))
			for _, name := range append(chain, args[0]) {
				err := checkRunnable(snap, name)
				if _, elsewhere := snap.Remote(remote, name); err != nil && name != permissions.GeneralPurpose && !elsewhere {
					return err // a remote one: Explain says why it cannot be on the chain
				}
			}
			e, err := snap.Explain(cfg.GlobalTools(), cfg.DelegationPolicy(), append(chain, args[0]), remote...)
			if err != nil {
				return err
			}
			markUnavailable(e.Tools, cfg)
			return s.jsonOrText(cmd, e, func() { printExplanation(s, e) })
		}),
	}
	jsonFlag(cmd.Flags(), nil, "print the decisions as JSON")
	cmd.Flags().StringSliceVar(&via, "via", nil, "the ancestors `PARENT,...` from the root down to the parent, comma-separated")
	cmd.RegisterFlagCompletionFunc("via", func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		// a comma list: complete its last name
		done, last := "", toComplete
		if i := strings.LastIndex(toComplete, ","); i >= 0 {
			done, last = toComplete[:i+1], toComplete[i+1:]
		}
		ids, dir := names(s.agentIDs)(cmd, args, last)
		for i := range ids {
			ids[i] = done + ids[i]
		}
		return ids, dir | cobra.ShellCompDirectiveNoSpace
	})
	addConfigFlags(cmd.Flags(), "agents")
	return cmd
}

// oneAgentViaFlag takes one AGENT: its ancestors go in --via, not in the
// arguments.
func oneAgentViaFlag(cmd *cobra.Command, args []string) error {
	switch {
	case len(args) == 0:
		return usage(cmd, "permissions needs an AGENT")
	case len(args) > 1:
		return usage(cmd, "permissions takes one AGENT; use --via %s for its ancestors", strings.Join(args[:len(args)-1], ","))
	}
	return nil
}

func printExplanation(s *session, e registry.Explanation) {
	fmt.Fprintf(s.stdout, "%s, on the chain %s\n", e.Agent, strings.Join(e.Chain, " → "))
	for _, w := range e.Warnings {
		fmt.Fprintf(s.stdout, "warning: %s\n", w)
	}
	fmt.Fprintln(s.stdout, "\ntools:")
	w := tabwriter.NewWriter(s.stdout, 0, 4, 2, ' ', 0)
	for _, d := range e.Tools {
		fmt.Fprintf(w, "  %s\t%s\t%s\n", verdict(d.Allowed, d.Ask), d.Tool, d.Reason)
	}
	w.Flush()
	fmt.Fprintln(s.stdout, "\nsub-agents:")
	var remote []registry.AgentDecision
	for _, d := range e.Subagents {
		name := d.Agent
		if d.Remote != "" {
			name += " (remote)"
			remote = append(remote, d)
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\n", verdict(d.Allowed, d.Ask), name, d.Reason)
	}
	w.Flush()
	if len(remote) > 0 {
		fmt.Fprintln(s.stdout, "\nremote agents (a2a: in agentry.yaml), by their A2A card:")
		for _, d := range remote {
			fmt.Fprintf(w, "  %s\t%s\n", d.Agent, d.Remote)
		}
		w.Flush()
	}
	for _, card := range e.UnnamedRemote {
		fmt.Fprintf(s.stdout, "note: the a2a: entry %s has no id: its id is its card's name, which permissions does not read; give it an id: to see it here\n", card)
	}
}

// verdict is the column before a decision: allow, ask or deny.
func verdict(allowed, ask bool) string {
	switch {
	case ask:
		return "ask"
	case allowed:
		return "allow"
	}
	return "deny"
}
