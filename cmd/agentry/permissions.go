package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
)

// permissionsCommand prints what AGENT may use and call on a chain, and why.
func permissionsCommand(ctx context.Context, s *session, args []string) int {
	fs := s.flagSet("permissions")
	asJSON := fs.Bool("json", false, "print the decisions as JSON")
	via := fs.String("via", "", "the ancestors `PARENT,...` from the root down to the parent, comma-separated")
	rest, code, ok := s.parse(fs, args)
	if !ok {
		return code
	}
	switch {
	case len(rest) == 0:
		return s.usageError(fs, "permissions needs an AGENT")
	case len(rest) > 1:
		return s.usageError(fs, "permissions takes one AGENT; use --via %s for its ancestors", strings.Join(rest[:len(rest)-1], ","))
	}
	cfg, err := s.loadConfig(fs)
	if err != nil {
		return s.badConfig(err)
	}
	reg, closeAgents, err := s.openAgents(ctx, cfg, false)
	if err != nil {
		return s.fail(err)
	}
	defer closeAgents()
	s.recordVersionsIfStored(ctx, cfg, reg.Snapshot())
	var chain []string
	for _, name := range strings.Split(*via, ",") {
		if name = strings.TrimSpace(name); name != "" {
			chain = append(chain, name)
		}
	}
	snap := reg.Snapshot()
	for _, name := range append(chain, rest[0]) {
		if err := checkRunnable(snap, name); err != nil && name != permissions.GeneralPurpose {
			return s.fail(err)
		}
	}
	e, err := snap.Explain(cfg.GlobalTools(), cfg.DelegationPolicy(), append(chain, rest[0]))
	if err != nil {
		return s.fail(err)
	}
	markUnavailable(e.Tools, cfg)
	if *asJSON {
		enc := json.NewEncoder(s.stdout)
		enc.SetIndent("", "  ")
		enc.Encode(e)
		return 0
	}
	printExplanation(s, e)
	return 0
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
	for _, d := range e.Subagents {
		fmt.Fprintf(w, "  %s\t%s\t%s\n", verdict(d.Allowed, d.Ask), d.Agent, d.Reason)
	}
	w.Flush()
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
