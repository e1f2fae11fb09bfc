package registry

import (
	"fmt"

	"github.com/agentry/agentry/registry/internal/typo"
	"github.com/agentry/agentry/registry/yamlstruct"
	"go.yaml.in/yaml/v3"
)

// knownKeys are the top-level keys agentry reads. A key close to one of
// them is almost always a typo, and an ignored typo can widen permissions
// (`tool:` instead of `tools:` leaves the agent unrestricted), so it is an
// error with a suggestion.
var knownKeys = yamlstruct.Keys(agentKeys{})

// keyAliases are misspellings that edit distance alone would not catch,
// mostly other tools' spellings of the same idea.
var keyAliases = map[string]string{
	"allowed_tools": "tools", "allowedtools": "tools", "allowed-tools": "tools", "allowed_tool": "tools",
	"tool": "tools", "disallowed_tools": "disallowedTools", "disallowed-tools": "disallowedTools",
	"disallowed_tool": "disallowedTools", "disallowedtool": "disallowedTools", "denied_tools": "disallowedTools",
	"subagent": "subagents", "sub-agents": "subagents", "subAgents": "subagents",
	"model_name": "model", "models": "model", "modelname": "model",
	"max-turns": "max_turns",
}

// foreignKeys are keys other tools write into agent files (Claude Code, VS
// Code, Copilot); they are kept and never taken for typos, however close
// they are to a known key (hooks ~ tools, VS Code's agent: of prompt files ~
// agents: ignoring them grants nothing).
var foreignKeys = map[string]bool{
	"color": true, "argument-hint": true, "target": true, "handoffs": true, "mcp-servers": true,
	"permissionMode": true, "skills": true, "hooks": true, "memory": true, "tags": true, "version": true,
	"author": true, "license": true, "category": true, "metadata": true, "icon": true, "title": true,
	"examples": true, "mode": true, "agent": true, "user-invocable": true, "hidden": true,
	"mcpServers": true, "background": true, "isolation": true, "effort": true,
	"disabled": true,
}

// ignoredKeys are the keys other tools write that change what the agent
// does there and that agentry cannot honour, with why: each is kept in the
// file and warned about, so nobody takes it for honoured. Keys that only
// change how a tool shows the agent (color, argument-hint, user-invocable)
// are kept silently.
var ignoredKeys = map[string]string{
	"hooks":          "agentry runs no hooks from an agent file; set them in agentry.yaml's hooks: (docs/hooks.md)",
	"mcpServers":     "agentry starts only the MCP servers of agentry.yaml and enabled plugins (docs/mcp.md), so tools of a server defined here are not available",
	"mcp-servers":    "agentry starts only the MCP servers of agentry.yaml and enabled plugins (docs/mcp.md), so tools of a server defined here are not available",
	"permissionMode": "agentry has no permission modes: each call is decided by the tools lists, and tools.ask has a person approve it (docs/approvals.md)",
	"memory":         "agentry keeps no memory between runs",
	"isolation":      "sub-agents run in the workspace folder, not in a worktree of their own",
	"background":     "whether a sub-agent runs in the background is chosen per call (delegate's background argument)",
	"effort":         "agentry sets no reasoning effort per agent",
	"handoffs":       "agentry shows no handoff buttons; to let this agent hand work on, allow the target in agents: or subagents.allow",
}

// ignored warns about each top-level key of ignoredKeys the file sets to
// something (hooks: {} or handoffs: [] asks for nothing to be ignored).
func (dc *decoder) ignored() {
	for k, v := range yamlstruct.Pairs(dc.d.root) {
		if why, ok := ignoredKeys[k.Value]; ok && !yamlstruct.IsNull(v) && (v.Kind == yaml.ScalarNode || len(v.Content) > 0) {
			dc.warnf(k, k.Value, "%s is ignored: %s", k.Value, why)
		}
	}
}

// suggestKey returns the known key an unknown key most likely means, or ""
// when it is not a near miss (and is kept as an unknown key).
func suggestKey(key string) string {
	if foreignKeys[key] {
		return ""
	}
	if k, ok := keyAliases[key]; ok {
		return k
	}
	norm := typo.Norm(key)
	if k, ok := keyAliases[norm]; ok {
		return k
	}
	return typo.Nearest(norm, knownKeys)
}

// unknownKey reports a top-level key agentry does not read when it is a
// near miss of one it does; any other unknown key is kept silently.
func (dc *decoder) unknownKey(p yamlstruct.Problem) {
	if want := suggestKey(p.Key); want != "" {
		dc.add(SeverityError, p.Line, p.Key, fmt.Sprintf("unknown key %q: did you mean %q? (as written it is ignored, which may grant more than intended)", p.Key, want))
	}
}

// lenient warns about each key whose line was strictly invalid YAML and was
// read leniently (see repairYAML).
func (dc *decoder) lenient() {
	for _, r := range dc.d.repaired {
		dc.add(SeverityWarning, dc.d.fileLine(r.line), r.name, fmt.Sprintf("%s: %s, which is not valid YAML; it is read as plain text (quote it to silence this warning)", r.name, r.why))
	}
}
