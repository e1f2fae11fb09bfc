package registry

import (
	"strings"

	"github.com/agentry/agentry/registry/internal/files"
)

// Agents of installed plugins join the snapshot beside the agents folder's
// (Change.Plugin, keyed by their absolute path). A plugin's agent whose id
// another file defines too is served as "plugin.id", so installing a
// plugin never takes an id from the agents folder or from another plugin
// (two plugins shipping the same agent name each get their prefix);
// nothing else is renamed. Dots are valid in ids (IDPattern) and never
// occur in a plugin's name, so the prefix cannot be mistaken.

// renamePluginAgents gives each plugin entry of entries (paths sorted) the
// id it is served by, replacing the entry in the map by a renamed copy
// when that id changes; entries are immutable and shared with other
// snapshots, and the copy remembers its base id.
func renamePluginAgents(entries map[string]*entry, paths []string) {
	count := map[string]int{}
	for _, p := range paths {
		if e := entries[p]; e.served != nil {
			count[e.baseID()]++
		}
	}
	for _, p := range paths {
		e := entries[p]
		if e.plugin == "" || e.served == nil {
			continue
		}
		want := e.baseID()
		if count[want] > 1 {
			want = e.plugin + "." + want
		}
		if want != e.served.agent.Name {
			entries[p] = e.renamed(want)
		}
	}
}

// baseID is the id the entry's file gives, before any plugin prefix.
func (e *entry) baseID() string {
	if e.base != "" {
		return e.base
	}
	return e.served.agent.Name
}

// renamed returns a copy of e serving id, its problems attributed to it.
func (e *entry) renamed(id string) *entry {
	c := *e
	c.base = e.baseID()
	c.name = id
	c.current = renamedVersion(e.current, id)
	c.served = renamedVersion(e.served, id)
	if e.served == e.current {
		c.served = c.current
	}
	c.own = make([]Problem, len(e.own))
	for i, p := range e.own {
		if p.Agent == e.name {
			p.Agent = id
		}
		c.own[i] = p
	}
	return &c
}

func renamedVersion(v *version, id string) *version {
	if v == nil {
		return nil
	}
	c := *v
	c.agent.Name = id
	return &c
}

// PluginOf returns the plugin an agent file comes from ("" for the agents
// folder's own).
func (s *Snapshot) PluginOf(id string) string {
	if e, ok := s.byName[id]; ok {
		return e.plugin
	}
	return ""
}

// Carry returns s with every file of from whose origin is the other one
// (plugins' files when s holds the agents folder's, and the reverse)
// added, validated together: a reload of the agents folder keeps the
// plugins' agents, and a reload of the plugins keeps the folder's.
func (s *Snapshot) Carry(from *Snapshot, plugins bool) *Snapshot {
	carried := 0
	for _, e := range from.entries {
		if (e.plugin != "") == plugins {
			carried++
		}
	}
	if carried == 0 {
		return s
	}
	next := make(map[string]*entry, len(s.entries)+carried)
	for p, e := range s.entries {
		if (e.plugin != "") != plugins {
			next[p] = e
		}
	}
	for p, e := range from.entries {
		if (e.plugin != "") == plugins {
			next[p] = e
		}
	}
	return build(max(s.version, from.version)+1, s.opts, next, from)
}

// ReplacePlugins returns s with the plugins' agent files replaced by
// changes (Change.Plugin set on each): the files of the agents folder
// stay, plugin files absent from changes go.
func (s *Snapshot) ReplacePlugins(changes []Change) *Snapshot {
	next := make(map[string]*entry, len(s.entries)+len(changes))
	for p, e := range s.entries {
		if e.plugin == "" {
			next[p] = e
		}
	}
	made := make([]*entry, len(changes))
	files.Parallel(len(changes), func(i int) {
		c := changes[i]
		if c.Err != nil {
			made[i] = unreadableEntry(c.Path, c.Err)
		} else {
			made[i] = newEntry(c.Path, c.Data, s.entries[c.Path], s.opts)
		}
		made[i].plugin = c.Plugin
	})
	for i, c := range changes {
		next[c.Path] = made[i]
	}
	return build(s.version+1, s.opts, next, s)
}

// PluginAgentPath reports whether a slash path relative to a plugins folder
// is an agent file of an installed plugin (PLUGIN/agents/NAME.md, or
// deeper in agents/), and names the plugin.
func PluginAgentPath(rel string) (plugin string, ok bool) {
	parts := strings.Split(rel, "/")
	if len(parts) < 3 || parts[1] != "agents" || !files.Plain(rel) || !strings.HasSuffix(rel, ".md") {
		return "", false
	}
	return parts[0], true
}

// IsPluginAgentFolder reports whether a folder of a plugins folder can hold
// plugin agent files.
func IsPluginAgentFolder(rel string) bool {
	if rel == "." {
		return true
	}
	parts := strings.Split(rel, "/")
	return files.Plain(rel) && (len(parts) == 1 || parts[1] == "agents")
}
