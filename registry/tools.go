package registry

import (
	"strings"

	"github.com/agentry/agentry/permissions"
)

// BuiltinTools are the tools agentry ships; the default Options.KnownTools.
var BuiltinTools = []string{
	"filesystem.edit_file",
	"filesystem.glob",
	"filesystem.grep",
	"filesystem.list_dir",
	"filesystem.read_file",
	"filesystem.write_file",
	"web.fetch",
}

// toolAliases maps Claude Code and VS Code tool names to agentry tools, so
// files written for those tools load as they are.
var toolAliases = map[string]string{
	// Claude Code
	"Read":      "filesystem.read_file",
	"Write":     "filesystem.write_file",
	"Edit":      "filesystem.edit_file",
	"MultiEdit": "filesystem.edit_file",
	"Glob":      "filesystem.glob",
	"Grep":      "filesystem.grep",
	"LS":        "filesystem.list_dir",
	"WebFetch":  "web.fetch",
	// VS Code (plain and tool-set forms)
	"readFile":             "filesystem.read_file",
	"editFiles":            "filesystem.edit_file",
	"createFile":           "filesystem.write_file",
	"fileSearch":           "filesystem.glob",
	"textSearch":           "filesystem.grep",
	"listDirectory":        "filesystem.list_dir",
	"fetch":                "web.fetch",
	"read/readFile":        "filesystem.read_file",
	"edit/editFiles":       "filesystem.edit_file",
	"edit/createFile":      "filesystem.write_file",
	"search/fileSearch":    "filesystem.glob",
	"search/textSearch":    "filesystem.grep",
	"search/listDirectory": "filesystem.list_dir",
	"web/fetch":            "web.fetch",
}

// MapToolName translates a tool name as written in a file to its agentry
// spelling: Claude Code names (Read → filesystem.read_file), Claude Code MCP
// names (mcp__server__tool → server.tool), VS Code names and "server/*"
// patterns (→ server.*). Names already in agentry form come back unchanged.
// The bool is false for a foreign name with no agentry equivalent (Bash).
func MapToolName(name string) (string, bool) {
	name = strings.TrimSpace(name)
	if a, ok := toolAliases[name]; ok {
		return a, true
	}
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok && rest != "" {
		return strings.Replace(rest, "__", ".", 1), true
	}
	if strings.Contains(name, "/") {
		return strings.ReplaceAll(name, "/", "."), true
	}
	if isAgentryToolName(name) {
		return name, true
	}
	return name, false
}

// isAgentryToolName reports whether name looks like an agentry tool or
// pattern: a lowercase group, optionally ".tool", globs allowed.
func isAgentryToolName(name string) bool {
	if name == "" {
		return false
	}
	for i, part := range strings.Split(name, ".") {
		if part == "" {
			return false
		}
		for _, r := range part {
			lower := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '*' || r == '?'
			upperOK := i > 0 && r >= 'A' && r <= 'Z' // MCP tools may be camelCase
			if !lower && !upperOK {
				return false
			}
		}
	}
	return true
}

// isPattern reports whether a name contains glob characters.
func isPattern(name string) bool {
	return strings.ContainsAny(name, "*?")
}

// matchesAny reports whether an agentry tool pattern covers at least one of
// the known tools: an exact name, a group ("web"), or a glob. A known entry
// "group.*" stands for every tool of a group listed only at run time (an MCP
// server), so any name in that group counts.
func matchesAny(pattern string, known []string) bool {
	for _, k := range known {
		if group, ok := strings.CutSuffix(k, ".*"); ok && (pattern == group || strings.HasPrefix(pattern, group+".")) {
			return true
		}
		if permissions.Match(pattern, k) {
			return true
		}
	}
	return false
}
