package main

import (
	"cmp"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/delegation/tool/filesystem"
	"github.com/agentry/agentry/delegation/tool/shell"
	"github.com/agentry/agentry/delegation/tool/skill"
	"github.com/agentry/agentry/delegation/tool/todo"
	"github.com/agentry/agentry/delegation/tool/webfetch"
	"github.com/agentry/agentry/delegation/tool/websearch"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace/postgres"
)

// builtinTools lists every built-in tool over the workspace ws, each with
// whether it can run here and why not; tool.Tools keeps those that can.
func builtinTools(cfg config.Config, ws *filesystem.Workspace) []tool.Availability {
	var out []tool.Availability
	for _, t := range ws.Tools() {
		out = append(out, tool.Available(t))
	}
	out = append(out, tool.Available(webfetch.New(webfetch.Config{AllowHosts: cfg.Web.AllowHosts, AllowCIDRs: cfg.Web.AllowNetworks})))
	out = append(out, tool.Available(skill.New())) // offered only to agents with usable skills
	return append(out, optionalTools(cfg)...)
}

// optionalTools are the built-in tools that depend on this machine or on
// configuration: shell.run needs bubblewrap, web.search a backend.
func optionalTools(cfg config.Config) []tool.Availability {
	return []tool.Availability{
		shell.New(shell.Config{
			Workspace: cfg.Workspace, Sandbox: cfg.Shell.Sandbox, Timeout: cfg.Shell.Timeout.D(),
			OutputLimit: cfg.Shell.OutputLimit, MaxProcs: cfg.Shell.MaxProcesses, Protected: ownState(cfg),
		}),
		websearch.New(websearch.Config{Backend: cfg.WebSearch.Backend, URL: cfg.WebSearch.URL, APIKey: cfg.WebSearch.APIKey}),
		tool.Available(todo.New()),
	}
}

// networkNote explains the shell.network line of `agentry permissions`,
// which is decided like a tool but granted only when named exactly.
const networkNote = "; a capability of shell.run, granted only where every level allows it and one names shell.network exactly"

// markUnavailable adds to the reason of each tool decision whose tool
// cannot run here why not, so a grant of such a tool stays visible.
func markUnavailable(decisions []registry.ToolDecision, cfg config.Config) {
	why := unavailableTools(cfg)
	for i, d := range decisions {
		if r, ok := why[d.Tool]; ok {
			decisions[i].Reason += "; UNAVAILABLE here: " + r
		}
		if d.Tool == shell.Network {
			decisions[i].Reason += networkNote
		}
	}
}

// unavailableTools maps each built-in tool that cannot run here to why not;
// the CLI and the web UI show it beside the tool's permission decision.
func unavailableTools(cfg config.Config) map[string]string {
	why := map[string]string{}
	for _, a := range optionalTools(cfg) {
		if !a.Ok() {
			why[a.Name] = a.Reason
		}
	}
	return why
}

// ownState is agentry's own state (DESIGN §12), which the shell sandbox
// mounts read-only or hides and the filesystem tools refuse, wherever it
// sits: the trace database with its -wal and -shm files and the config
// file, hidden (other runs' traces and approvals, API keys); the agents,
// workflows, skills and plugins folders (every folder skills and commands
// are read from), read-only.
func ownState(cfg config.Config) []tool.Protected {
	var out []tool.Protected
	if !postgres.IsURL(cfg.DB) {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			out = append(out, tool.Protected{Path: cfg.DB + suffix, What: "the trace database", Hidden: true})
		}
	}
	out = append(out,
		tool.Protected{Path: cmp.Or(cfg.File, "agentry.yaml"), What: "the config file", Hidden: true},
		tool.Protected{Path: cfg.Agents, What: "the agents folder", Dir: true},
		tool.Protected{Path: cmp.Or(cfg.Workflows, "workflows"), What: "the workflows folder", Dir: true},
		// An agent under evaluation must not edit the suite that judges it.
		tool.Protected{Path: cmp.Or(cfg.Evals, "evals"), What: "the eval suites folder", Dir: true},
	)
	for _, r := range libraryRoots(cfg) {
		out = append(out, tool.Protected{Path: r.Dir, What: "the " + r.Label + " folder", Dir: true})
	}
	return out
}
