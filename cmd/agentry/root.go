package main

import (
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/cmd/agentry/config"
)

// rootCommand is `agentry`: its commands, --config for all of
// them, --version, and help in agentry's words.
func (s *session) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "agentry COMMAND",
		Short:         "run, edit and trace LLM agents written as Markdown files",
		Version:       versionLine(debug.ReadBuildInfo()),
		SilenceErrors: true, // main prints them (session.exit)
		SilenceUsage:  true,
	}
	root.PersistentFlags().String("config", "", "configuration `FILE` (default "+config.DefaultFile+" when present)")
	root.Flags().Bool("version", false, "print the version and the commit agentry was built from")
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetUsageTemplate(usageTemplate)
	root.SetHelpTemplate(`{{.UsageString}}`)
	root.SetFlagErrorFunc(flagError)
	root.SetHelpCommand(s.helpCommand())
	parent(root, s.commands()...)
	root.InitDefaultHelpCmd() // cobra adds these two at Execute; here, so the tree is whole before
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" { // cobra's, for bash, zsh, fish and powershell
			c.Short = "print the script that completes agentry's commands, flags, agents and workflows in a shell"
			c.Use, c.Long, c.Args = "completion SHELL", "", nil
			asParent(c)
			for _, sh := range c.Commands() {
				sh.Short = "print the completion script for " + sh.Name()
			}
		}
	}
	return root
}

// commands is the command tree below the root; help lists each level in
// name order.
func (s *session) commands() []*cobra.Command {
	return []*cobra.Command{
		s.chatCommand(), s.evalCommand(), s.historyCommand(), s.mcpCommand(), s.permissionsCommand(),
		s.runCommand(), s.serveCommand(), s.validateCommand(), s.versionCommand(), s.workerCommand(),
		parent(s.approvalsCommand(), s.approvalsApproveCommand(), s.approvalsDenyCommand(), s.approvalsListCommand()),
		parent(s.pluginsCommand(), s.pluginsAddCommand(), s.pluginsListCommand(), s.pluginsRemoveCommand(), s.pluginsUpdateCommand(),
			s.pluginsRunsCommand("show"), s.pluginsRunsCommand("enable"), s.pluginsRunsCommand("disable")),
		parent(s.skillsCommand(), s.skillsListCommand()),
		parent(s.tracesCommand(), s.tracesDeleteCommand(), s.tracesExportCommand(), s.tracesImportCommand(), s.tracesListCommand(), s.tracesShowCommand()),
		parent(s.workflowCommand(), s.workflowExplainCommand(), s.workflowNewCommand(), s.workflowRunCommand(), s.workflowValidateCommand()),
	}
}

// helpCommand is `agentry help [COMMAND...]`: COMMAND --help, or an
// unknown command named with the nearest one (exit 2).
func (s *session) helpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND]",
		Short: "show a command's arguments and flags",
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return unknownCommand(cmd, rest)
			}
			cmd.InitDefaultHelpFlag() // as cobra's own help command does: so its usage lists --help
			return cmd.Help()
		},
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			cmd, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []string
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() {
					out = append(out, sub.Name())
				}
			}
			return names(func(*cobra.Command) ([]string, error) { return out, nil })(c, args, toComplete)
		},
	}
}
