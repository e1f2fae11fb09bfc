package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/registry/plugin"
)

// pluginsListCommand is `agentry plugins list [--json]`: the installed
// plugins with their counts of agents, skills, commands, hooks and servers.
func (s *session) pluginsListCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "list the installed plugins with their agents, skills, commands, hooks and MCP servers",
		Args:  noArgs,
		RunE: s.withPlugins(func(cmd *cobra.Command, args []string, st *plugin.Store) error {
			list, err := st.List()
			if err != nil {
				return err
			}
			return s.jsonOrText(cmd, orEmpty(list), func() { printPlugins(s.stdout, list) })
		}),
	}
	jsonFlag(cmd.Flags(), nil, "print JSON: name, version, source and the counts")
	return cmd
}

// pluginsRemoveCommand is `agentry plugins remove NAME`.
func (s *session) pluginsRemoveCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME",
		Short: "remove an installed plugin and its lock entry",
		Args:  onePlugin,
		RunE: s.withPlugins(func(cmd *cobra.Command, args []string, st *plugin.Store) error {
			if err := st.Remove(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(s.stdout, "removed plugin %s\n", args[0])
			return nil
		}),
	}
}
