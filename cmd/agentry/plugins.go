package main

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/delegation/hooks"
	"github.com/agentry/agentry/registry/plugin"
)

// pluginsCommand installs and manages Claude Code plugins (docs/plugins.md):
// add, list, remove, update, show, enable, disable.
func (s *session) pluginsCommand() *cobra.Command {
	return group("plugins [add PATH|GIT-URL | list | remove NAME | update [NAME...] | show NAME | enable NAME | disable NAME]",
		"install Claude Code plugins and marketplaces, and enable their hooks and MCP servers",
		"agents")
}

// withPlugins is the RunE of a plugins subcommand: it hands run the
// plugins folder of cmd's configuration.
func (s *session) withPlugins(run func(cmd *cobra.Command, args []string, st *plugin.Store) error) func(*cobra.Command, []string) error {
	return s.with(configOnly, func(cmd *cobra.Command, args []string, o *opened) error {
		return run(cmd, args, &plugin.Store{Dir: o.cfg.PluginsDir()})
	})
}

// onePlugin is the Args of a subcommand about one installed plugin.
var onePlugin = oneArg("needs the plugin's NAME")

// pluginRuns shows what a plugin's hooks and servers run, and enables or
// disables them: enable only after they were shown and --yes confirms.
func (s *session) pluginRuns(st *plugin.Store, verb, name string, hooks, mcp, yes bool) error {
	if !hooks && !mcp {
		hooks, mcp = true, true
	}
	l, err := st.Lock()
	if err != nil {
		return err
	}
	p, ok := l.Find(name)
	if !ok {
		return fmt.Errorf("plugin %q is not installed (agentry plugins list)", name)
	}
	if verb == "disable" {
		if err := st.Enable(name, hooks, mcp, false); err != nil {
			return err
		}
		fmt.Fprintf(s.stdout, "disabled %s of plugin %s\n", parts(hooks, mcp), name)
		return nil
	}
	hs, err := st.Hooks(name)
	if err != nil {
		return err
	}
	ms, err := st.MCPServers(name)
	if err != nil {
		return err
	}
	printRuns(s.stdout, p, hs, ms)
	if verb == "show" {
		return nil
	}
	if !yes {
		fmt.Fprintf(s.stdout, "\nThese commands run with your permissions. To enable them: agentry plugins enable %s --%s --yes\n", name, strings.ReplaceAll(parts(hooks, mcp), " and ", " --"))
		return exitCode(1)
	}
	if err := st.Enable(name, hooks, mcp, true); err != nil {
		return err
	}
	fmt.Fprintf(s.stdout, "\nenabled %s of plugin %s (from the next serve or run on)\n", parts(hooks, mcp), name)
	return nil
}

func parts(hooks, mcp bool) string {
	switch {
	case hooks && mcp:
		return "hooks and mcp"
	case hooks:
		return "hooks"
	}
	return "mcp"
}

// printRuns lists a plugin's hook commands and MCP servers with whether
// they are enabled.
func printRuns(w io.Writer, p plugin.Locked, hs []plugin.Hook, ms []plugin.MCPServer) {
	state := map[bool]string{true: "ENABLED", false: "disabled"}
	fmt.Fprintf(w, "plugin %s %s (%s)\n\nhooks: %s\n", p.Name, p.Version, p.Source, state[p.HooksEnabled])
	if len(hs) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, h := range hs {
		line := h.String()
		if why := hooks.NeverRuns(h.Event, h.Matcher, h.If); why != "" {
			line += " (" + why + ")"
		}
		fmt.Fprintln(w, "  "+line)
	}
	fmt.Fprintf(w, "\nmcp servers: %s\n", state[p.MCPEnabled])
	if len(ms) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, m := range ms {
		line := strings.TrimSpace(m.Command + " " + strings.Join(m.Args, " "))
		if m.URL != "" {
			line = m.URL + " (remote; agentry starts stdio servers only)"
		}
		fmt.Fprintf(w, "  %s: %s\n", m.Name, line)
		for k, v := range m.Env {
			fmt.Fprintf(w, "    %s=%s\n", k, v)
		}
	}
}

// printReport prints what an add or update did; it fails only when nothing
// was installed.
func (s *session) printReport(cmd *cobra.Command, rep plugin.Report) error {
	rep.Installed, rep.Skipped = orEmpty(rep.Installed), orEmpty(rep.Skipped)
	if err := s.jsonOrText(cmd, rep, func() { printInstalled(s.stdout, rep) }); err != nil {
		return err
	}
	if len(rep.Installed) == 0 && len(rep.Skipped) > 0 {
		return exitCode(1)
	}
	return nil
}

// printInstalled says what an add or update installed, skipped and disabled.
func printInstalled(w io.Writer, rep plugin.Report) {
	for _, p := range rep.Installed {
		fmt.Fprintln(w, strings.TrimSpace("installed "+p.Name+" "+p.Version)) // a plugin may have no version
	}
	for _, sk := range rep.Skipped {
		fmt.Fprintf(w, "skipped %s (%s): %s\n", sk.Name, sk.Source, sk.Reason)
	}
	for _, n := range rep.Disabled {
		fmt.Fprintf(w, "⚠ %s: its hooks or MCP servers changed and were disabled again: agentry plugins show %s\n", n, n)
	}
	fmt.Fprintf(w, "%d installed, %d skipped\n", len(rep.Installed), len(rep.Skipped))
}

func printPlugins(w io.Writer, list []plugin.Installed) {
	if len(list) == 0 {
		fmt.Fprintln(w, "no plugins installed (agentry plugins add PATH|GIT-URL)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PLUGIN\tVERSION\tAGENTS\tSKILLS\tCOMMANDS\tHOOKS\tMCP\tSOURCE")
	on := map[bool]string{true: " (on)", false: ""}
	for _, p := range list {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d%s\t%d%s\t%s\n", p.Name, cmp.Or(p.Version, "-"), p.Agents, p.Skills, p.Commands,
			p.Hooks, on[p.HooksEnabled && p.Hooks > 0], p.MCPServers, on[p.MCPEnabled && p.MCPServers > 0], p.Source)
	}
	tw.Flush()
}

// applyPlugins adds what a person enabled of the installed plugins to cfg:
// their MCP servers beside the configured ones (a name the configuration
// already uses gets the plugin's name in front) and their hooks.json
// beside the configured hooks. Hooks and servers not enabled do nothing.
// A plugin whose configuration cannot be read is reported and left out.
func (s *session) applyPlugins(cfg *config.Config) {
	st := &plugin.Store{Dir: cfg.PluginsDir()}
	l, err := st.Lock()
	if err != nil {
		fmt.Fprintf(s.stderr, "agentry: warning: plugins: %v\n", err)
		return
	}
	for _, p := range l.Plugins {
		if p.MCPEnabled {
			servers, err := st.MCPServers(p.Name)
			if err != nil {
				fmt.Fprintf(s.stderr, "agentry: warning: plugin %s: %v; its servers are left out\n", p.Name, err)
			}
			for _, m := range servers {
				if m.Command == "" {
					continue // a remote server: not started by agentry
				}
				name := m.Name
				if _, taken := cfg.MCP.Servers[name]; taken {
					name = p.Name + "-" + m.Name
				}
				if cfg.MCP.Servers == nil {
					cfg.MCP.Servers = map[string]config.MCPServerConfig{}
				}
				cfg.MCP.Servers[name] = config.MCPServerConfig{Command: m.Command, Args: m.Args, Env: m.Env}
			}
		}
		if p.HooksEnabled {
			data, err := st.HooksJSON(p.Name)
			if err != nil {
				fmt.Fprintf(s.stderr, "agentry: warning: plugin %s: %v; its hooks are left out\n", p.Name, err)
			}
			if data != nil {
				cfg.Hooks.Plugins = append(cfg.Hooks.Plugins, data)
			}
		}
	}
}
