package main

import (
	"github.com/spf13/cobra"

	"github.com/agentry/agentry/registry/plugin"
)

// pluginsAddCommand is `agentry plugins add PATH|GIT-URL [--plugin NAME]`:
// a marketplace's plugins, or one plugin, into the plugins folder, each
// recorded in the lock file; what git cannot fetch is skipped with its reason.
func (s *session) pluginsAddCommand() *cobra.Command {
	var only []string
	cmd := &cobra.Command{
		Use:   "add PATH|GIT-URL",
		Short: "install a marketplace's plugins (or one plugin) from a folder or a git repository",
		Example: `  agentry plugins add ../skills                          # a local clone of anthropics/skills
  agentry plugins add https://github.com/wshobson/agents --plugin python-development`,
		Args: oneArg("needs one PATH or GIT-URL"),
		RunE: s.withPlugins(func(cmd *cobra.Command, args []string, st *plugin.Store) error {
			rep, err := st.Add(cmd.Context(), args[0], only)
			if err != nil {
				return err
			}
			return s.printReport(cmd, rep)
		}),
	}
	cmd.Flags().StringArrayVar(&only, "plugin", nil, "install only the plugin `NAME` of the marketplace (repeatable)")
	jsonFlag(cmd.Flags(), nil, "print the report as JSON: {installed, skipped, disabled}")
	return cmd
}

// pluginsUpdateCommand is `agentry plugins update [NAME...]`: installs the
// named plugins (all without names) again from their recorded source.
func (s *session) pluginsUpdateCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "update [NAME...]",
		Short: "install plugins again from their recorded source (all without NAME)",
		RunE: s.withPlugins(func(cmd *cobra.Command, args []string, st *plugin.Store) error {
			rep, err := st.Update(cmd.Context(), args)
			if err != nil {
				return err
			}
			return s.printReport(cmd, rep)
		}),
	}
	jsonFlag(cmd.Flags(), nil, "print the report as JSON: {installed, skipped, disabled}")
	return cmd
}
