package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/agentry/agentry/registry/plugin"
)

// pluginsCommand installs and manages Claude Code plugins (docs/plugins.md):
// add, list, remove, update, show, enable, disable.
func pluginsCommand(ctx context.Context, s *session, args []string) int {
	fs := s.flagSet("plugins")
	asJSON := fs.Bool("json", false, "print JSON: list's plugins with their counts, add's and update's report")
	var only []string
	fs.Func("plugin", "install only the plugin `NAME` of the marketplace (repeatable)", func(v string) error {
		only = append(only, v)
		return nil
	})
	hooks := fs.Bool("hooks", false, "enable or disable the plugin's hooks (with neither --hooks nor --mcp: both)")
	mcp := fs.Bool("mcp", false, "enable or disable the plugin's MCP servers")
	yes := fs.Bool("yes", false, "enable without asking again, after reading what the hooks and servers run (plugins show)")
	rest, code, ok := s.parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) == 0 {
		return s.usageError(fs, "plugins needs add, list, remove, update, show, enable or disable")
	}
	cfg, err := s.loadConfig(fs)
	if err != nil {
		return s.badConfig(err)
	}
	st := &plugin.Store{Dir: cfg.pluginsDir()}
	name := func() (string, bool) {
		if len(rest) != 2 {
			return "", false
		}
		return rest[1], true
	}
	switch rest[0] {
	case "add":
		src, ok := name()
		if !ok {
			return s.usageError(fs, "plugins add needs one PATH or GIT-URL")
		}
		rep, err := st.Add(ctx, src, only)
		if err != nil {
			return s.fail(err)
		}
		return s.printReport(rep, *asJSON)
	case "update":
		rep, err := st.Update(ctx, rest[1:])
		if err != nil {
			return s.fail(err)
		}
		return s.printReport(rep, *asJSON)
	case "list":
		list, err := st.List()
		if err != nil {
			return s.fail(err)
		}
		if *asJSON {
			if list == nil {
				list = []plugin.Installed{}
			}
			return s.printJSON(list)
		}
		printPlugins(s.stdout, list)
		return 0
	case "remove":
		n, ok := name()
		if !ok {
			return s.usageError(fs, "plugins remove needs the plugin's NAME")
		}
		if err := st.Remove(n); err != nil {
			return s.fail(err)
		}
		fmt.Fprintf(s.stdout, "removed plugin %s\n", n)
		return 0
	case "show", "enable", "disable":
		n, ok := name()
		if !ok {
			return s.usageError(fs, "plugins %s needs the plugin's NAME", rest[0])
		}
		if !*hooks && !*mcp {
			*hooks, *mcp = true, true
		}
		return s.pluginRuns(st, rest[0], n, *hooks, *mcp, *yes)
	}
	return s.usageError(fs, "unknown plugins command %q (add, list, remove, update, show, enable, disable)", rest[0])
}

// pluginRuns shows what a plugin's hooks and servers run, and enables or
// disables them: enable only after they were shown and --yes confirms.
func (s *session) pluginRuns(st *plugin.Store, verb, name string, hooks, mcp, yes bool) int {
	l, err := st.Lock()
	if err != nil {
		return s.fail(err)
	}
	p, ok := l.Find(name)
	if !ok {
		return s.fail(fmt.Errorf("plugin %q is not installed (agentry plugins list)", name))
	}
	if verb == "disable" {
		if err := st.Enable(name, hooks, mcp, false); err != nil {
			return s.fail(err)
		}
		fmt.Fprintf(s.stdout, "disabled %s of plugin %s\n", parts(hooks, mcp), name)
		return 0
	}
	hs, err := st.Hooks(name)
	if err != nil {
		return s.fail(err)
	}
	ms, err := st.MCPServers(name)
	if err != nil {
		return s.fail(err)
	}
	printRuns(s.stdout, p, hs, ms)
	if verb == "show" {
		return 0
	}
	if !yes {
		fmt.Fprintf(s.stdout, "\nThese commands run with your permissions. To enable them: agentry plugins enable %s --%s --yes\n", name, strings.ReplaceAll(parts(hooks, mcp), " and ", " --"))
		return 1
	}
	if err := st.Enable(name, hooks, mcp, true); err != nil {
		return s.fail(err)
	}
	fmt.Fprintf(s.stdout, "\nenabled %s of plugin %s (from the next serve or run on)\n", parts(hooks, mcp), name)
	return 0
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
		fmt.Fprintf(w, "  %s %s: %s\n", h.Event, cmp.Or(h.Matcher, "*"), h.Command)
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
func (s *session) printReport(rep plugin.Report, asJSON bool) int {
	if asJSON {
		if rep.Installed == nil {
			rep.Installed = []plugin.Locked{}
		}
		if rep.Skipped == nil {
			rep.Skipped = []plugin.Skipped{}
		}
		s.printJSON(rep)
	} else {
		for _, p := range rep.Installed {
			fmt.Fprintf(s.stdout, "installed %s %s\n", p.Name, p.Version)
		}
		for _, sk := range rep.Skipped {
			fmt.Fprintf(s.stdout, "skipped %s (%s): %s\n", sk.Name, sk.Source, sk.Reason)
		}
		for _, n := range rep.Disabled {
			fmt.Fprintf(s.stdout, "⚠ %s: its hooks or MCP servers changed and were disabled again: agentry plugins show %s\n", n, n)
		}
		fmt.Fprintf(s.stdout, "%d installed, %d skipped\n", len(rep.Installed), len(rep.Skipped))
	}
	if len(rep.Installed) == 0 && len(rep.Skipped) > 0 {
		return 1
	}
	return 0
}

func (s *session) printJSON(v any) int {
	enc := json.NewEncoder(s.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return s.fail(err)
	}
	return 0
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
func (s *session) applyPlugins(cfg *Config) {
	st := &plugin.Store{Dir: cfg.pluginsDir()}
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
					cfg.MCP.Servers = map[string]MCPServerConfig{}
				}
				cfg.MCP.Servers[name] = MCPServerConfig{Command: m.Command, Args: m.Args, Env: m.Env}
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
