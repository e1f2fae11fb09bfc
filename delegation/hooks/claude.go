package hooks

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/agentry/agentry/registry"
)

// claudePoints maps Claude Code's hook events to agentry's points. Stop
// (Claude finished answering) is the end of a run here.
var claudePoints = map[string]Point{
	"PreToolUse": PreTool, "PostToolUse": PostTool, "SubagentStart": SubagentStart,
	"SubagentStop": SubagentStop, "Stop": RunEnd,
}

// claudeSettings is the part of a Claude Code settings.json that holds hooks.
type claudeSettings struct {
	Hooks map[string][]struct {
		Matcher string `json:"matcher"`
		Hooks   []struct {
			Type    string  `json:"type"`
			Command string  `json:"command"`
			If      string  `json:"if"`
			Timeout float64 `json:"timeout"` // seconds
		} `json:"hooks"`
	} `json:"hooks"`
}

// LoadClaude reads the hooks of a Claude Code settings.json
// ({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type":
// "command", "command": "...", "timeout": 5}]}]}}). Tool matchers are mapped
// to agentry's tool names through registry.MapTool (Bash → shell.run,
// "Edit|Write" → both filesystem tools), a handler's "if" rule the same way
// (Bash(git push *) → shell.run(git push *)). Events agentry has no point for,
// hook types other than command, and matchers naming no agentry tool come
// back as warnings, never as a hook that runs for everything. known is the
// tool names of this runtime, for MCP and VS Code names.
func LoadClaude(data []byte, known []string) (Set, []string, error) {
	var s claudeSettings
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, nil, fmt.Errorf("claude code settings: %w", err)
	}
	set := Set{}
	var warnings []string
	for _, event := range slices.Sorted(maps.Keys(s.Hooks)) {
		p, ok := claudePoints[event]
		if !ok {
			warnings = append(warnings, fmt.Sprintf("claude code hook event %s: not available in agentry", event))
			continue
		}
		for i, group := range s.Hooks[event] {
			match, warn := claudeMatch(p, group.Matcher, known)
			if warn != "" {
				warnings = append(warnings, fmt.Sprintf("claude code %s[%d] matcher %q: %s", event, i, group.Matcher, warn))
			}
			if match == nil {
				continue
			}
			for j, h := range group.Hooks {
				if h.Type != "" && h.Type != "command" {
					warnings = append(warnings, fmt.Sprintf("claude code %s[%d].hooks[%d]: type %q not available in agentry", event, i, j, h.Type))
					continue
				}
				cond, warn, ok := claudeIf(h.If, known)
				if warn != "" {
					warnings = append(warnings, fmt.Sprintf("claude code %s[%d].hooks[%d] if %q: %s", event, i, j, h.If, warn))
				}
				if !ok {
					continue
				}
				set[p] = append(set[p], Hook{Match: *match, If: cond, Command: h.Command,
					Timeout: time.Duration(h.Timeout * float64(time.Second))})
			}
		}
	}
	if err := set.Validate(); err != nil {
		return nil, warnings, fmt.Errorf("claude code settings: %w", err)
	}
	return set, warnings, nil
}

// claudeMatch turns a Claude Code matcher into a Match; nil means the
// group is dropped (with the warning). Claude Code matchers are exact names
// or regular expressions; the common forms (a name, "A|B", "*", "") are
// mapped, a name with regex syntax beyond that maps to nothing.
func claudeMatch(p Point, matcher string, known []string) (*string, string) {
	all := ""
	m := strings.TrimSpace(matcher)
	if m == "" || m == "*" || m == ".*" {
		return &all, ""
	}
	if p != PreTool && p != PostTool {
		return &m, "" // agent matchers name agents; agentry's ids are the same names
	}
	var pats, missing []string
	for _, alt := range strings.Split(m, "|") {
		t := registry.MapTool(strings.TrimSpace(alt), known)
		if t.Unavailable || len(t.Tools) == 0 {
			missing = append(missing, alt)
			continue
		}
		for _, name := range t.Tools {
			if i := strings.IndexByte(name, '('); i >= 0 { // shell.run(git *): hooks match tools, not arguments
				name = name[:i]
			}
			if !slices.Contains(pats, name) {
				pats = append(pats, name)
			}
		}
	}
	warn := ""
	if len(missing) > 0 {
		warn = "not available in agentry: " + strings.Join(missing, ", ")
	}
	if len(pats) == 0 {
		return nil, warn + "; hook dropped"
	}
	out := strings.Join(pats, "|")
	return &out, warn
}

// claudeIf turns a handler's "if", one Claude Code permission rule
// (Bash(git push *)), into an If. A rule naming no agentry tool drops the
// hook (ok false): it could never run. One agentry cannot narrow to its
// argument (Edit(src/**)) keeps the hook for every call of the tool, with a
// warning: a guard that runs too often is safer than one that never runs.
func claudeIf(rule string, known []string) (cond, warn string, ok bool) {
	if strings.TrimSpace(rule) == "" {
		return "", "", true
	}
	t := registry.MapTool(rule, known)
	if t.Unavailable || len(t.Tools) == 0 {
		return "", "not available in agentry; hook dropped", false
	}
	if t.Narrowed {
		warn = t.Reason + ", so the hook runs for every call of it"
	}
	return strings.Join(t.Tools, "|"), warn, true
}

// IsClaudeEvent reports whether name is a Claude Code hook event agentry
// loads (PreToolUse, PostToolUse, SubagentStart, SubagentStop, Stop).
func IsClaudeEvent(name string) bool {
	_, ok := claudePoints[name]
	return ok
}

// NeverRuns says why a Claude Code hook never runs here, "" when it may: a
// plugin's consent screen lists every hook the plugin has, in its own
// words, and marks those LoadClaude would drop (an event agentry has no
// point for, a matcher or an "if" naming no agentry tool), so no one is
// asked to consent to a command that cannot run. Whether a name is an MCP
// server's depends on the servers configured when the hooks load, so every
// name is read here as if its server were (anyServer): a hook is marked
// only when no configuration could make it run, never one that may.
func NeverRuns(event, matcher, ifRule string) string {
	p, ok := claudePoints[event]
	if !ok {
		return "never run: agentry has no " + event + " point"
	}
	if m, warn := claudeMatch(p, matcher, anyServer(append(strings.Split(matcher, "|"), ifRule))); m == nil {
		return "never run: " + strings.TrimSuffix(warn, "; hook dropped")
	}
	if _, _, ok := claudeIf(ifRule, anyServer([]string{ifRule})); !ok {
		return "never run: its if, " + ifRule + ", is not available in agentry"
	}
	return ""
}

// anyServer is the built-in tools and, for each name, its first segment
// as a configured MCP server's ("github" of github/create_issue).
func anyServer(names []string) []string {
	known := slices.Clone(registry.BuiltinTools)
	for _, n := range names {
		if server, _, _ := strings.Cut(strings.TrimSpace(n), "/"); server != "" {
			known = append(known, server+".*")
		}
	}
	return known
}
