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
	dialect   toolDialect
	qualified bool
}

// entryMap is one old entry with what it means.
type entryMap struct {
	raw     string
	tools   []string
	visible bool // the form shows its tools as chips
	used    bool
}

// wantItem is one wanted agentry tool, or a name written as it is (raw)
// because it grants no tool (Task).
type wantItem struct {
	tool, raw string
}

// placed is one entry of the new list; old is its index in the old list,
// -1 for a new entry.
type placed struct {
	raw string
	old int
}

// respeller holds one respell in progress.
type respeller struct {
	entries []*entryMap
	items   []wantItem
	wantSet map[string]bool
	covered map[string]bool
	result  []placed
	sp      spelling
}

// respell returns the entries to write so that the list means want (agentry
// names, or names in any spelling) while keeping old's spelling, order of
// hidden entries and the entries the form cannot show. deny is set for deny
// lists, where a narrowed name (Read(./x)) is a chip too.
func respell(old, want []string, known []string, deny bool, sp spelling) []string {
	r := &respeller{sp: sp, wantSet: map[string]bool{}, covered: map[string]bool{}}
	for _, raw := range old {
		t := mapTool(raw, known, sp.dialect)
		visible := len(t.Tools) > 0 && !t.Delegate && !t.Unavailable && (deny || !t.Narrowed)
		r.entries = append(r.entries, &entryMap{raw: raw, tools: t.Tools, visible: visible})
	}
	for _, w := range want {
		t := MapTool(w, append(slices.Clone(known), groupOf(w)+".*"))
		if len(t.Tools) == 0 || t.Delegate {
			r.items = append(r.items, wantItem{raw: w})
			continue
		}
		for _, tool := range t.Tools {
			r.wantSet[tool] = true
			r.items = append(r.items, wantItem{tool: tool})
		}
	}
	if r.unchanged() {
		return slices.Clone(old)
	}
	for _, it := range r.items {
		if it.raw != "" {
			r.add(it.raw)
		} else if !r.covered[it.tool] {
			r.cover(it.tool)
		}
	}
	r.placeHidden()
	names := make([]string, len(r.result))
	for i, p := range r.result {
		names[i] = p.raw
	}
	return names
}

// unchanged reports whether the wanted tools are the old ones in the old
// order, so the file stays as it is.
func (r *respeller) unchanged() bool {
	var oldFlat, wantFlat []string
	for _, e := range r.entries {
		if e.visible {
			oldFlat = appendNew(oldFlat, e.tools...)
		}
	}
	for _, it := range r.items {
		if it.raw != "" {
			return false
		}
		wantFlat = appendNew(wantFlat, it.tool)
	}
	return slices.Equal(oldFlat, wantFlat)
}

// add appends raw, taking the unused old entry written the same way if
// there is one (so it is not placed again as a hidden entry).
func (r *respeller) add(raw string) {
	if slices.ContainsFunc(r.result, func(p placed) bool { return p.raw == raw }) {
		return
	}
	i := slices.IndexFunc(r.entries, func(e *entryMap) bool { return !e.used && e.raw == raw })
	if i >= 0 {
		r.entries[i].used = true
	}
	r.result = append(r.result, placed{raw, i})
}

// cover appends the old entries that grant tool and nothing unwanted, as
// they were written; when there are none, tool spelled in the dialect.
func (r *respeller) cover(tool string) {
	found := false
	for i, e := range r.entries {
		if e.used || !e.visible || !slices.Contains(e.tools, tool) || !allIn(e.tools, r.wantSet) {
			continue
		}
		e.used, found = true, true
		r.result = append(r.result, placed{e.raw, i})
		for _, t := range e.tools {
			r.covered[t] = true
		}
	}
	if !found {
		for _, s := range spellTool(tool, r.sp) {
			r.add(s)
		}
		r.covered[tool] = true
	}
}

// placeHidden puts every old entry the form could not show back after the
// entry that preceded it; one with nothing surviving before it leads.
func (r *respeller) placeHidden() {
	leading := 0
	for i, e := range r.entries {
		if e.visible || e.used {
			continue
		}
		at := -1
		for j := i - 1; j >= 0 && at < 0; j-- {
			if k := slices.IndexFunc(r.result, func(p placed) bool { return p.old == j }); k >= 0 {
				at = k + 1
			}
		}
		if at < 0 {
			at = leading
			leading++
		}
		r.result = slices.Insert(r.result, at, placed{e.raw, i})
	}
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
	if sp.dialect == dialectAgentry {
		return []string{tool}
	}
	if s, ok := spellRow(tool, sp); ok {
		return []string{s}
	}
	if slices.Contains(builtinGroups, tool) {
		var out []string
		for _, m := range slices.Concat(BuiltinTools, permissionOnlyTools) {
			if g, _, _ := strings.Cut(m, "."); g == tool {
				out = append(out, spellTool(m, sp)...)
			}
		}
		return out
	}
	if cmd, ok := strings.CutPrefix(tool, shellRun+"("); ok && sp.dialect == dialectClaude {
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
	case sp.dialect == dialectClaude && (!hasTool || rest == "*"):
		return []string{"mcp__" + group}
	case sp.dialect == dialectClaude:
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
		case sp.dialect == dialectClaude:
			return r.name, true
		case strings.Contains(r.name, "/"):
			qualified = cmpOr(qualified, r.name)
		case isVSCodeSet(r.name):
			set = cmpOr(set, r.name)
		default:
			plain = cmpOr(plain, r.name)
		}
	}
	// A tool set comes last: VS Code writes single tools qualified
	// (web/fetch) or plain (todos), and a set only where nothing else says
	// the same (web for fetch and search).
	order := []string{plain, qualified, set}
	if sp.qualified {
		order = []string{qualified, plain, set}
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
		for _, b := range slices.Concat(BuiltinTools, permissionOnlyTools) {
			if g, _, _ := strings.Cut(b, "."); g == t && !slices.Contains(permissionOnlyTools, b) {
				out = append(out, b)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// detectSpelling decides how a tool field is written: in the family it
// is written for (writtenFor), and for VS Code whether its names are
// qualified by their tool set.
func detectSpelling(file string, entries []string, claudeForm bool) spelling {
	sawQualified, sawPlain := false, false
	for _, e := range entries {
		if MapTool(e, nil).dialect != dialectVSCode || isVSCodeSet(e) {
			continue
		}
		first, _, qualified := strings.Cut(e, "/")
		sawQualified = sawQualified || qualified && isVSCodeSet(first)
		sawPlain = sawPlain || !qualified
	}
	return spelling{dialect: writtenFor(file, entries, claudeForm), qualified: sawQualified || !sawPlain}
}

// writtenFor is the tool family a tool list is written for: the one most
// of its names are spelled in (web, todo and shell, agentry's groups as
// well as VS Code's names, and the delegation names, which agentry's own
// lists may carry too, count for neither), else the file's (VS Code's
// files, isVSCodeFile; Claude Code's .claude/ folder), else
// Claude Code's when the list has its form (claudeForm: a comma string,
// or disallowedTools), else agentry's. It decides how an edit spells the
// list, and whether the list speaks of delegating (decode.go).
func writtenFor(file string, entries []string, claudeForm bool) toolDialect {
	counts := map[toolDialect]int{}
	for _, e := range entries {
		if t := MapTool(e, nil); !t.Delegate && !slices.Contains(builtinGroups, e) {
			counts[t.dialect]++
		}
	}
	switch {
	case counts[dialectClaude] > counts[dialectVSCode]:
		return dialectClaude
	case counts[dialectVSCode] > counts[dialectClaude]:
		return dialectVSCode
	case isVSCodeFile(file):
		return dialectVSCode
	case strings.Contains("/"+file, "/.claude/") || claudeForm || counts[dialectClaude] > 0:
		return dialectClaude // a tie of both families is not agentry's either
	}
	return dialectAgentry
}
