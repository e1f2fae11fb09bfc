package skills

import (
	"bytes"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentry/agentry/registry"
)

// entry returns the skill entry of folder dir, made when missing.
func (r *libRoot) entry(dir, plugin string) *skillEntry {
	e, ok := r.skills[dir]
	if !ok {
		e = &skillEntry{dir: dir, plugin: plugin, files: map[string]int64{}}
		r.skills[dir] = e
	}
	return e
}

// file records that a skill folder's other file exists with size, and
// checks the skill again when its list changed.
func (r *libRoot) file(rel string, size int64) {
	dir, plugin, ok := skillDirOf(r.root.Kind, rel)
	if !ok {
		return
	}
	e := r.entry(dir, plugin)
	f := strings.TrimPrefix(rel, dir+"/")
	old, had := e.files[f]
	e.files[f] = size
	if !had || old != size {
		r.reparse(e)
	}
}

// apply installs one change of a SKILL.md or command file, or the deletion
// of a skill's other file.
func (r *libRoot) apply(ch registry.Change) {
	if file, plugin, ok := commandOf(r.root.Kind, ch.Path); ok {
		r.applyCommand(ch, file, plugin)
		return
	}
	dir, plugin, ok := skillDirOf(r.root.Kind, ch.Path)
	if !ok {
		return
	}
	e := r.entry(dir, plugin)
	if path.Base(ch.Path) != FileName || path.Dir(ch.Path) != dir {
		if ch.Deleted {
			delete(e.files, strings.TrimPrefix(ch.Path, dir+"/"))
			r.reparse(e)
			r.dropEmpty(e)
		}
		return
	}
	switch {
	case ch.Deleted:
		e.hasFile, e.readErr, e.text, e.hash, e.current, e.served, e.probs = false, nil, "", "", nil, nil, nil
		r.dropEmpty(e)
	case ch.Err != nil:
		e.hasFile, e.readErr, e.current, e.served = false, ch.Err, nil, nil
		e.probs = []registry.Problem{registry.Problem{File: ch.Path, Severity: registry.SeverityError, Message: "cannot read file: " + ch.Err.Error()}}
	default:
		if e.hasFile && e.hash == registry.Hash(ch.Data) {
			return
		}
		e.hasFile, e.readErr, e.text, e.hash = true, nil, string(ch.Data), registry.Hash(ch.Data)
		r.reparse(e)
	}
}

// reparse parses the entry's SKILL.md again with its current file list.
func (r *libRoot) reparse(e *skillEntry) {
	if !e.hasFile {
		return
	}
	files := make([]Resource, 0, len(e.files))
	for _, f := range slices.Sorted(maps.Keys(e.files)) {
		files = append(files, Resource{Path: f, Size: e.files[f]})
	}
	s, probs := Parse(e.dir, []byte(e.text), files)
	s.Plugin, s.Root, s.Path = e.plugin, r.root.Label, path.Join(r.root.Dir, e.dir)
	e.probs = probs
	e.current = nil
	if !registry.HasError(probs) {
		e.current = &s
	}
	if e.current != nil || e.served == nil {
		e.served = e.current
	} else {
		// Broken: keep the last good version, with today's file list.
		last := *e.served
		last.Files = files
		e.served = &last
	}
}

// dropEmpty forgets a skill folder left with no files at all.
func (r *libRoot) dropEmpty(e *skillEntry) {
	if !e.hasFile && e.readErr == nil && len(e.files) == 0 {
		delete(r.skills, e.dir)
	}
}

// pluginText is a plugin's command file as Claude Code reads it, with
// ${CLAUDE_PLUGIN_ROOT} replaced by the plugin's installed folder in its
// prompt and its allowed-tools (Bash(${CLAUDE_PLUGIN_ROOT}/scripts/x.sh:*));
// other files are as they are.
func (r *libRoot) pluginText(data []byte, plugin string) []byte {
	if plugin == "" || r.root.Dir == "" {
		return data
	}
	return bytes.ReplaceAll(data, []byte("${CLAUDE_PLUGIN_ROOT}"), []byte(filepath.Join(r.root.Dir, plugin)))
}

// applyCommand installs one change of a command file.
func (r *libRoot) applyCommand(ch registry.Change, file, plugin string) {
	prev := r.cmds[ch.Path]
	switch {
	case ch.Deleted:
		delete(r.cmds, ch.Path)
	case ch.Err != nil:
		r.cmds[ch.Path] = &cmdEntry{file: file, plugin: plugin,
			probs: []registry.Problem{registry.Problem{File: ch.Path, Severity: registry.SeverityError, Message: "cannot read file: " + ch.Err.Error()}}}
	default:
		h := registry.Hash(ch.Data)
		if prev != nil && prev.hash == h {
			return
		}
		c, probs := ParseCommand(file, r.pluginText(ch.Data, plugin))
		c.Plugin, c.Root, c.File = plugin, r.root.Label, ch.Path
		for i := range probs {
			probs[i].File = ch.Path
		}
		e := &cmdEntry{file: file, plugin: plugin, hash: h, probs: probs}
		if !registry.HasError(probs) {
			e.current = &c
		}
		e.served = e.current
		if e.served == nil && prev != nil {
			e.served = prev.served
		}
		r.cmds[ch.Path] = e
	}
}
