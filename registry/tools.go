package registry

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry/internal/typo"
)

// BuiltinTools are the tools agentry ships; the default Options.KnownTools.
var BuiltinTools = []string{
	"filesystem.edit_file",
	"filesystem.glob",
	"filesystem.grep",
	"filesystem.list_dir",
	"filesystem.read_file",
	"filesystem.write_file",
	"shell.run",
	"skill",
	"todo.write",
	"web.fetch",
	"web.search",
}

// argumentTools are the tools whose calls a pattern's argument part can
// restrict: shell.run, whose command line shell.run(git *) matches.
var argumentTools = []string{"shell.run"}

// CommandPatternProblem says why the tool pattern p, written with an
// argument part, would restrict nothing, or "" when it can (or has no
// argument part): the part before the parentheses must be exactly a tool
// that takes one. "*(git *)" or "web.fetch(x)" is an error, never a
// silent grant (DESIGN §12).
func CommandPatternProblem(p string) string {
	tool, _, ok := permissions.SplitPattern(p)
	switch {
	case !ok:
		return ""
	case permissions.ValidArgumentPattern(p) != "":
		return permissions.ValidArgumentPattern(p)
	case !slices.Contains(argumentTools, tool):
		return fmt.Sprintf("%q: %s takes no argument a pattern could match; only %s does (shell.run(git *))", p, tool, strings.Join(argumentTools, ", "))
	}
	return ""
}

// permissionOnlyTools are names a tool list may grant that are no tool of
// their own: shell.network lets shell.run commands reach the network.
var permissionOnlyTools = []string{"shell.network"}

// builtinGroups are the groups of BuiltinTools and permissionOnlyTools: a
// name in one of them is agentry's own spelling.
var builtinGroups = []string{"filesystem", "shell", "skill", "todo", "web"}

// ToolName is what one tool name written in a file means in agentry.
type ToolName struct {
	Written string
	dialect toolDialect // the family the name is written in; a tool list is respelled in it
	// Tools are the agentry tools or patterns the name grants (or denies).
	Tools []string
	// Delegate is set for Task, Agent, agent, runSubagent: the agent may
	// delegate. Targets limit it when the file wrote Agent(a, b).
	Delegate bool
	Targets  []string
	// Unavailable is set when agentry has nothing for the name; Reason says why.
	Unavailable bool
	Reason      string
	// Narrowed is set when the file limited a tool in a way agentry cannot
	// (Read(./src/**)): Tools is the whole tool, which a deny list may use
	// but an allow list must not.
	Narrowed bool
}

// ToolDelegation is what an agent's tool lists say about delegating:
// Claude Code's Task and Agent, VS Code's agent and runSubagent. The runtime
// and the validator combine it with the subagents rules.
type ToolDelegation struct {
	// Listed is set when the allow list names a delegation tool.
	Listed bool
	// Refused says why the file's lists refuse the agent delegating at
	// all, where they are all it may use: an allow list written for Claude
	// Code or VS Code that names no delegation tool ("its tools list names
	// no Task or Agent"), or VS Code's agents: [] ("its agents list is
	// empty"). An agentry list leaves it "": its subagents rules decide.
	Refused string
	// Targets are the agents Agent(a, b) names; nil means any target the
	// subagents rules allow.
	Targets []string
	// Denied is set when the deny list (disallowedTools) names a delegation
	// tool; DeniedTargets are the agents a deny entry Agent(a, b) names,
	// which only those are refused.
	Denied        bool
	DeniedTargets []string
}

// claudeRule is a Claude Code permission rule: Tool(specifier).
var claudeRule = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_]*)\((.*)\)$`)

// claudeRuleOf matches claudeRule; most names have no parentheses, and
// are answered without running it.
func claudeRuleOf(name string) []string {
	if !strings.HasSuffix(name, ")") {
		return nil
	}
	return claudeRule.FindStringSubmatch(name)
}

// dottedName reports whether name is a plain group.tool, the usual case of
// agentryName: letters, digits, _ and - on both sides of one dot.
func dottedName(name string) bool {
	group, tool, ok := strings.Cut(name, ".")
	return ok && group != "" && group[0] != '_' && group[0] != '-' && plainWord(group) && plainWord(tool)
}

func plainWord(s string) bool {
	for i := range len(s) {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return s != ""
}

// agentryName is agentry's spelling: group, group.tool or a pattern, with an
// optional command pattern in parentheses (shell.run(git *)).
// The group may be capitalised: MCP servers are named by their users.
var agentryName = regexp.MustCompile(`^(\*|[A-Za-z0-9*?][A-Za-z0-9_*?-]*)(\.[A-Za-z0-9_*?-]+)?(\(.*\))?$`)

// MapTool translates one tool name as written in a file, with known the
// tools that exist here (BuiltinTools plus "server.*" for each configured
// MCP server): Claude Code and VS Code names through the table, Claude
// Code's Bash(git:*) and Agent(a, b) rules, mcp__server__tool, VS Code's
// server/* and server/tool, and agentry's own names. A name agentry has
// nothing for comes back Unavailable, never as an invented tool name.
func MapTool(name string, known []string) ToolName { return mapTool(name, known, dialectAgentry) }

// mapTool is MapTool for a list read in vocab's names. Agentry's groups web
// and todo are VS Code tool sets too: in agentry's names (and Claude
// Code's, which has neither) they are agentry's groups; in a VS Code file
// they are VS Code's sets, and its web set fetches pages but has no web
// search, so reading it as agentry's group would grant more than it says.
func mapTool(name string, known []string, vocab toolDialect) ToolName {
	name = strings.TrimSpace(name)
	t := ToolName{Written: name, dialect: dialectAgentry}
	if vocab != dialectVSCode && slices.Contains(builtinGroups, name) {
		t.Tools = []string{name}
		return t
	}
	if r, ok := toolIndex[name]; ok {
		t.dialect, t.Tools, t.Delegate = r.dialect, slices.Clone(r.tools), r.delegate
		if len(r.tools) == 0 && !r.delegate {
			t.Unavailable, t.Reason = true, r.note
		}
		return t
	}
	if m := claudeRuleOf(name); m != nil {
		if _, ok := toolIndex[m[1]]; ok {
			return claudePattern(t, m[1], strings.TrimSpace(m[2]))
		}
	}
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok {
		return claudeMCP(t, rest)
	}
	if server, tool, ok := strings.Cut(name, "/"); ok {
		return vscodeQualified(t, server, tool, known)
	}
	if dottedName(name) {
		t.Tools = []string{name} // what agentryName below decides, without the regexp
		return t
	}
	if m := agentryName.FindStringSubmatch(name); m != nil {
		group := strings.Trim(m[1], "*?")
		// group.tool is agentry's spelling even for a server not configured
		// here (the rule is kept, and validation says it matches nothing); a
		// bare word is a server only when one of that name is configured.
		if m[1] != group || m[2] != "" || slices.Contains(builtinGroups, group) || serverConfigured(group, known) {
			t.Tools = []string{name}
			return t
		}
	}
	return unavailable(t, "no such tool or configured MCP server")
}

func unavailable(t ToolName, reason string) ToolName {
	t.Unavailable, t.Reason, t.Tools = true, reason, nil
	return t
}

// claudePattern reads Tool(specifier): Bash's command patterns, Agent's and
// Task's targets, and narrowed tools.
func claudePattern(t ToolName, tool, spec string) ToolName {
	t.dialect = dialectClaude
	switch tool {
	case "Bash":
		if spec == "" || spec == "*" {
			t.Tools = []string{shellRun}
			return t
		}
		if p, ok := strings.CutSuffix(spec, ":*"); ok {
			spec = p + " *"
		}
		t.Tools = []string{shellRun + "(" + spec + ")"}
		return t
	case "Agent", "Task":
		t.Delegate = true
		for _, a := range strings.Split(spec, ",") {
			if a = strings.TrimSpace(a); a != "" {
				t.Targets = append(t.Targets, a)
			}
		}
		return t
	}
	r := toolIndex[tool]
	if r.dialect != dialectClaude || len(r.tools) == 0 {
		return unavailable(t, "no agentry tool for "+tool)
	}
	t.Tools, t.Narrowed = slices.Clone(r.tools), true
	t.Reason = "agentry cannot limit " + tool + " to (" + spec + ")"
	return t
}

// claudeMCP reads mcp__server, mcp__server__tool and mcp__server__*.
func claudeMCP(t ToolName, rest string) ToolName {
	t.dialect = dialectClaude
	server, tool, _ := strings.Cut(rest, "__")
	if !validServer(server) {
		return unavailable(t, "not a valid MCP server name")
	}
	if tool == "" {
		t.Tools = []string{server}
	} else {
		t.Tools = []string{server + "." + tool}
	}
	return t
}

// vscodeQualified reads "first/second": a VS Code tool set's member, a VS
// Code extension's tool (publisher.extension/tool), or an MCP server's
// tools. Only server/* and a configured server's tool are MCP.
func vscodeQualified(t ToolName, first, second string, known []string) ToolName {
	t.dialect = dialectVSCode
	switch {
	case isVSCodeSet(first):
		return unavailable(t, "VS Code tool set "+first+" has no tool "+second+" agentry knows")
	case second == "*" && validServer(first):
		t.Tools = []string{first + ".*"}
		return t
	case second == "*":
		return unavailable(t, "MCP server name "+first+" cannot be an agentry tool group")
	case validServer(first) && serverConfigured(first, known) && second != "" && !strings.Contains(second, "/"):
		t.Tools = []string{first + "." + second}
		return t
	case strings.Contains(first, "."):
		return unavailable(t, "a VS Code extension's tool")
	}
	return unavailable(t, "MCP server "+first+" is not configured")
}

// validServer reports whether s can be an MCP server's group name.
func validServer(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// serverConfigured reports whether known lists a tool of group server.
func serverConfigured(server string, known []string) bool {
	for _, k := range known {
		if g, _, _ := strings.Cut(k, "."); g == server {
			return true
		}
	}
	return false
}

// splitToolNames splits a comma string of tool names at the commas outside
// parentheses ("Agent(a, b), Read" is two names), trimming and dropping
// empty parts.
func splitToolNames(s string) []string { return SplitOutsideParentheses(s, ",") }

// SplitOutsideParentheses splits s at any of seps that is not inside
// parentheses, so "Bash(git add:*) Read" is two names and a hook's
// "shell.run(a | b)|web" two patterns; parts are trimmed, empty ones dropped.
func SplitOutsideParentheses(s, seps string) []string {
	var out []string
	depth, start := 0, 0
	add := func(part string) {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && strings.ContainsRune(seps, r):
			add(s[start:i])
			start = i + 1
		}
	}
	add(s[start:])
	return out
}

// isPattern reports whether a name contains glob characters.
func isPattern(name string) bool {
	return strings.ContainsAny(name, "*?")
}

// nearestTool is a did-you-mean for a tool name that matches none: the
// known tool it is a near miss of (typo.Nearest), or "".
func nearestTool(name string, known []string) string {
	names := make([]string, 0, len(known))
	for _, k := range known {
		if !strings.HasSuffix(k, ".*") {
			names = append(names, k)
		}
	}
	if near := typo.Nearest(name, names); near != "" {
		return fmt.Sprintf("; did you mean %q?", near)
	}
	return ""
}

// matchesAny reports whether an agentry tool pattern covers at least one of
// the known tools: an exact name, a group ("web"), or a glob. A known entry
// "group.*" stands for every tool of a group listed only at run time (an MCP
// server), so any name in that group counts. A command pattern
// (shell.run(git *)) counts when its tool does; permission-only names
// (shell.network) always count.
func matchesAny(pattern string, known []string) bool {
	if i := strings.IndexByte(pattern, '('); i > 0 && strings.HasSuffix(pattern, ")") {
		pattern = pattern[:i]
	}
	if slices.Contains(permissionOnlyTools, pattern) {
		return true
	}
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
