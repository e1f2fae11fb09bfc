package skills

import (
	"fmt"
	"maps"
	"path"
	"slices"

	"github.com/agentry/agentry/registry"
)

// item is a skill or command that could be served, with where it is.
type item struct {
	base, plugin, file string // file: the File.Path
	order              int
}

// install builds the Library of every root and makes it current; c.mu is
// held.
func (c *Catalog) install() {
	l := &Library{version: c.Snapshot().version + 1, where: map[string]source{}}
	fileOf := map[string]*File{}
	var skills []Skill
	var skillItems []item
	var cmds []Command
	var cmdItems []item
	for order, r := range c.roots {
		for _, dir := range slices.Sorted(maps.Keys(r.skills)) {
			e := r.skills[dir]
			if !e.hasFile && e.readErr == nil {
				continue
			}
			rel := path.Join(dir, FileName)
			f := r.libraryFile(l, rel, "skill", e.plugin, e.hash, e.probs, e.current == nil && e.served != nil)
			fileOf[f.Path] = f
			if e.served != nil {
				skills = append(skills, *e.served)
				skillItems = append(skillItems, item{base: e.served.ID, plugin: e.plugin, file: f.Path, order: order})
			}
		}
		for _, rel := range slices.Sorted(maps.Keys(r.cmds)) {
			e := r.cmds[rel]
			f := r.libraryFile(l, rel, "command", e.plugin, e.hash, e.probs, e.current == nil && e.served != nil)
			fileOf[f.Path] = f
			if e.served != nil {
				cmds = append(cmds, *e.served)
				cmdItems = append(cmdItems, item{base: e.served.ID, plugin: e.plugin, file: f.Path, order: order})
			}
		}
	}
	for i, id := range serveIDs(skillItems, fileOf, "skill") {
		if id != "" {
			s := skills[i]
			s.ID = id
			l.skills = append(l.skills, s)
		}
	}
	for i, id := range serveIDs(cmdItems, fileOf, "command") {
		if id != "" {
			cm := cmds[i]
			cm.ID = id
			l.commands = append(l.commands, cm)
		}
	}
	for _, f := range fileOf {
		registry.SortProblems(f.Problems)
		l.files = append(l.files, *f)
	}
	l.index()
	c.cur.Store(l)
	c.changes.Notify()
}

// libraryFile makes the File of a root's file, with its problems
// named by the root's label, and records where it lives.
func (r *libRoot) libraryFile(l *Library, rel, kind, plugin, hash string, probs []registry.Problem, stale bool) *File {
	p := path.Join(r.root.Label, rel)
	f := &File{Path: p, Kind: kind, Plugin: plugin, Hash: hash, Stale: stale}
	for _, pr := range probs {
		pr.File = p
		f.Problems = append(f.Problems, pr)
	}
	l.where[p] = source{fsys: r.fsys, root: r.root, rel: rel}
	return f
}

// serveIDs gives each item the ID it is served by, or "" when another item
// holds that ID: a plugin's item whose base name another item has too is
// prefixed with its plugin; of items that still share an ID the first root
// and then the smallest path serves. The files of items involved get the
// problems that say so, and their ID.
func serveIDs(items []item, files map[string]*File, kind string) []string {
	bases, plugins := make([]string, len(items)), make([]string, len(items))
	for i, it := range items {
		bases[i], plugins[i] = it.base, it.plugin
	}
	ids := pluginPrefixed(bases, plugins)
	first := map[string]int{}
	for i := range items {
		if j, taken := first[ids[i]]; !taken || items[i].order < items[j].order ||
			items[i].order == items[j].order && items[i].file < items[j].file {
			first[ids[i]] = i
		}
	}
	out := make([]string, len(items))
	for i, it := range items {
		f := files[it.file]
		j := first[ids[i]]
		for k := range f.Problems {
			f.Problems[k].Agent = ids[i]
		}
		if j == i {
			out[i], f.ID = ids[i], ids[i]
			continue
		}
		other := files[items[j].file]
		f.Problems = append(f.Problems, registry.Problem{File: f.Path, Agent: ids[i], Severity: registry.SeverityError, Line: 1, Field: "name",
			Message: fmt.Sprintf("%s %q is already served by %s (an earlier folder or a smaller path); this one is not used until one of them is renamed", kind, ids[i], other.Path)})
		other.Problems = append(other.Problems, registry.Problem{File: other.Path, Agent: ids[i], Severity: registry.SeverityWarning, Line: 1, Field: "name",
			Message: fmt.Sprintf("%s %q is also defined by %s; this one is used", kind, ids[i], f.Path)})
	}
	return out
}
