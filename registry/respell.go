package registry

import (
	"slices"
	"strings"
)

// Writing tool lists back in the file's own dialect. The editor works in
// agentry names (its chips are Agent.Tools); the file keeps the names it
// was written with. respell turns the edited agentry list back into file
// entries: an old entry whose tools are all still wanted stays as written,
// a wanted tool no entry covers is spelled in the field's dialect, and
// entries the form never showed (Task, search/codebase, a server not
// configured here) stay where they were.

// spelling is how a tool list is written: its dialect and, for VS Code,
// whether tools are qualified (read/readFile) or plain (readFile).
type spelling struct {
	dialect   Dialect
	qualified bool
}

// entryMap is one old entry with what it means.
type entryMap struct {
	raw     string
	tools   []string
	visible bool // the form shows its tools as chips
	used    bool
}

// respell returns the entries to write so that the list means want (agentry
// names, or names in any spelling) while keeping old's spelling, order of
// hidden entries and the entries the form cannot show. deny is set for deny
// lists, where a narrowed name (Read(./x)) is a chip too.
func respell(old, want []string, known []string, deny bool, sp spelling) []string {
	entries := make([]*entryMap, len(old))
	for i, raw := range old {
		t := MapTool(raw, known)
		visible := len(t.Tools) > 0 && !t.Delegate && !t.Unavailable && (deny || !t.Narrowed)
		entries[i] = &entryMap{raw: raw, tools: t.Tools, visible: visible}
	}
	wantSet := map[string]bool{}
	type item struct {
		tool, raw string
	}
	var items []item
	for _, w := range want {
		t := MapTool(w, append(slices.Clone(known), groupOf(w)+".*"))
		if len(t.Tools) == 0 || t.Delegate {
			items = append(items, item{raw: w})
			continue
		}
		for _, tool := range t.Tools {
			wantSet[tool] = true
			items = append(items, item{tool: tool})
		}
	}
	if !slices.ContainsFunc(items, func(it item) bool { return it.raw != "" }) {
		var oldFlat, wantFlat []string
		for _, e := range entries {
			if e.visible {
				oldFlat = appendNew(oldFlat, e.tools...)
			}
		}
		for _, it := range items {
			wantFlat = appendNew(wantFlat, it.tool)
		}
		if slices.Equal(oldFlat, wantFlat) {
			return slices.Clone(old) // the same tools: the file stays as it is
		}
	}
	type out struct {
		raw string
		old int // index in old, -1 for a new entry
	}
	var result []out
	covered := map[string]bool{}
	for _, it := range items {
		if it.raw != "" {
			if i := slices.IndexFunc(entries, func(e *entryMap) bool { return !e.used && e.raw == it.raw }); i >= 0 {
				entries[i].used = true
				result = append(result, out{it.raw, i})
			} else {
				result = append(result, out{it.raw, -1})
			}
			continue
		}
		if covered[it.tool] {
			continue
		}
		found := false
		for i, e := range entries {
			if e.used || !e.visible || !slices.Contains(e.tools, it.tool) || !allIn(e.tools, wantSet) {
				continue
			}
			e.used, found = true, true
			result = append(result, out{e.raw, i})
			for _, tool := range e.tools {
				covered[tool] = true
			}
		}
		if !found {
			for _, s := range spellTool(it.tool, sp) {
				if slices.ContainsFunc(result, func(o out) bool { return o.raw == s }) {
					continue
				}
				// A hidden entry already spelled this way (a server this
				// document does not know) is the same entry.
				i := slices.IndexFunc(entries, func(e *entryMap) bool { return !e.used && e.raw == s })
				if i >= 0 {
					entries[i].used = true
				}
				result = append(result, out{s, i})
			}
			covered[it.tool] = true
		}
	}
	// Hidden entries go back after the entry that preceded them.
	leading := 0
	for i, e := range entries {
		if e.visible || e.used {
			continue
		}
		at := -1
		for j := i - 1; j >= 0 && at < 0; j-- {
			if k := slices.IndexFunc(result, func(o out) bool { return o.old == j }); k >= 0 {
				at = k + 1
			}
		}
		if at < 0 { // nothing before it survived: it leads, after earlier leaders
			at = leading
			leading++
		}
		result = slices.Insert(result, at, out{e.raw, i})
	}
	names := make([]string, len(result))
	for i, o := range result {
		names[i] = o.raw
	}
	return names
}

func appendNew(list []string, names ...string) []string {
	for _, n := range names {
		if !slices.Contains(list, n) {
			list = append(list, n)
		}
	}
	return list
}

func allIn(tools []string, set map[string]bool) bool {
	for _, t := range tools {
		if !set[t] {
			return false
		}
	}
	return true
}

// groupOf is the first segment of a tool name: the server of github.x,
// github/x or mcp__github__x.
func groupOf(name string) string {
	name = strings.TrimPrefix(name, "mcp__")
	if i := strings.Index(name, "__"); i > 0 {
		name = name[:i]
	}
	if i := strings.IndexAny(name, "./("); i > 0 {
		return name[:i]
	}
	return name
}

// spellTool writes one agentry tool in a dialect: the table's first row
// that means exactly that tool, MCP names in the dialect's form, a
// built-in group as its members. A tool the dialect has no name for keeps
// its agentry name.
func spellTool(tool string, sp spelling) []string {
	if sp.dialect == DialectAgentry {
		return []string{tool}
	}
	if s, ok := spellRow(tool, sp); ok {
		return []string{s}
	}
	if slices.Contains(builtinGroups, tool) {
		var out []string
		for _, m := range slices.Concat(BuiltinTools, PermissionOnlyTools) {
			if g, _, _ := strings.Cut(m, "."); g == tool {
				out = append(out, spellTool(m, sp)...)
			}
		}
		return out
	}
	if cmd, ok := strings.CutPrefix(tool, shellRun+"("); ok && sp.dialect == DialectClaude {
		cmd = strings.TrimSuffix(cmd, ")")
		if p, ok := strings.CutSuffix(cmd, " *"); ok {
			cmd = p + ":*"
		}
		return []string{"Bash(" + cmd + ")"}
	}
	group, rest, hasTool := strings.Cut(tool, ".")
	if slices.Contains(builtinGroups, group) || !validServer(group) || isPattern(group) {
		return []string{tool}
	}
	switch {
	case sp.dialect == DialectClaude && (!hasTool || rest == "*"):
		return []string{"mcp__" + group}
	case sp.dialect == DialectClaude:
		return []string{"mcp__" + group + "__" + rest}
	case !hasTool:
		return []string{group + "/*"}
	}
	return []string{group + "/" + rest}
}

// spellRow finds the table row of the dialect that means exactly tool,
// preferring qualified or plain VS Code names as the file does.
func spellRow(tool string, sp spelling) (string, bool) {
	want := expandGroups([]string{tool})
	var plain, set, qualified string
	for _, r := range toolTable {
		if r.dialect != sp.dialect || r.delegate || len(r.tools) == 0 || !slices.Equal(expandGroups(r.tools), want) {
			continue
		}
		switch {
		case sp.dialect == DialectClaude:
			return r.name, true
		case strings.Contains(r.name, "/"):
			qualified = cmpOr(qualified, r.name)
		case isVSCodeSet(r.name):
			set = cmpOr(set, r.name)
		default:
			plain = cmpOr(plain, r.name)
		}
	}
	order := []string{plain, set, qualified}
	if sp.qualified {
		order = []string{qualified, set, plain}
	}
	for _, s := range order {
		if s != "" {
			return s, true
		}
	}
	return "", false
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// expandGroups replaces built-in groups by their tools, sorted, so "web"
// and [web.fetch, web.search] compare equal.
func expandGroups(tools []string) []string {
	var out []string
	for _, t := range tools {
		if !slices.Contains(builtinGroups, t) {
			out = append(out, t)
			continue
		}
		for _, b := range slices.Concat(BuiltinTools, PermissionOnlyTools) {
			if g, _, _ := strings.Cut(b, "."); g == t && !slices.Contains(PermissionOnlyTools, b) {
				out = append(out, b)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// detectSpelling decides how a tool field is written: by the dialect most of
// its entries use, else by the kind of file (VS Code's *.agent.md and
// *.chatmode.md, Claude Code's .claude/ folder), else by the form (a comma
// string or disallowedTools is Claude Code's).
func detectSpelling(file string, entries []string, claudeForm bool) spelling {
	counts := map[Dialect]int{}
	sawQualified, sawPlain := false, false
	for _, e := range entries {
		t := MapTool(e, nil)
		counts[t.Dialect]++
		if t.Dialect != DialectVSCode || isVSCodeSet(e) {
			continue
		}
		first, _, qualified := strings.Cut(e, "/")
		sawQualified = sawQualified || qualified && isVSCodeSet(first)
		sawPlain = sawPlain || !qualified
	}
	sp := spelling{qualified: sawQualified || !sawPlain}
	switch {
	case counts[DialectClaude] > counts[DialectVSCode]:
		sp.dialect = DialectClaude
	case counts[DialectVSCode] > counts[DialectClaude]:
		sp.dialect = DialectVSCode
	case strings.HasSuffix(file, ".agent.md") || strings.HasSuffix(file, ".chatmode.md"):
		sp.dialect = DialectVSCode
	case strings.Contains("/"+file, "/.claude/") || claudeForm:
		sp.dialect = DialectClaude
	default:
		sp.dialect = DialectAgentry
	}
	return sp
}
