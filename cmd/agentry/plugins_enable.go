package main

import (
	"github.com/spf13/cobra"

	"github.com/agentry/agentry/registry/plugin"
)

// pluginRunsShort says what each of show, enable and disable does.
var pluginRunsShort = map[string]string{
	"show":    "show what a plugin's hooks and MCP servers run, and whether they are enabled",
	"enable":  "enable a plugin's hooks and MCP servers, after showing what they run (--yes confirms)",
	"disable": "disable a plugin's hooks and MCP servers",
}

// pluginsRunsCommand is `agentry plugins show|enable|disable NAME [--hooks]
// [--mcp]`: a plugin's hooks and servers run code, so they start disabled
// and are enabled only after what they run was shown.
func (s *session) pluginsRunsCommand(verb string) *cobra.Command {
	var hooks, mcp, yes bool
	cmd := &cobra.Command{
		Use:   verb + " NAME",
		Short: pluginRunsShort[verb],
		Args:  onePlugin,
		RunE: s.withPlugins(func(cmd *cobra.Command, args []string, st *plugin.Store) error {
			return s.pluginRuns(st, verb, args[0], hooks, mcp, yes)
		}),
	}
	if verb != "show" {
		cmd.Flags().BoolVar(&hooks, "hooks", false, "only the plugin's hooks (with neither --hooks nor --mcp: both)")
		cmd.Flags().BoolVar(&mcp, "mcp", false, "only the plugin's MCP servers")
	}
	if verb == "enable" {
		cmd.Flags().BoolVar(&yes, "yes", false, "enable without asking again, after reading what the hooks and servers run")
	}
	return cmd
}
