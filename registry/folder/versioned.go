package folder

import (
	"io/fs"
	"path"
	"strings"
	"sync"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/skills"
)

// Versioned wraps c so that every file change it takes in is also handed
// to on as a registry.FileChanged of kind (docs/versions.md): the writes
// the watcher sees, and the saves of Write, Rename and Delete with the
// source their Sourced writer gave. nameOf says what a file defines (an
// agent's id); it is called after c has taken the change, so it may read
// c's new state. Load hands nothing on: what changed while nothing ran is
// found by comparing the loaded files with the recorded versions, which
// the caller does once the folder is open.
//
// A change is handed on once per content: a file saved by Write and then
// seen again by the watcher, or re-read by Sync unchanged, is not a new
// version. A file renamed in one step keeps its name's history: the
// deletion of a name that the same batch adds again is not handed on.
func Versioned(c Contents, kind string, nameOf func(rel string, data []byte) string, on registry.OnChange) Contents {
	return &versioned{Contents: c, kind: kind, nameOf: nameOf, on: on, seen: map[string]string{}}
}

type versioned struct {
	Contents
	kind   string
	nameOf func(rel string, data []byte) string
	on     registry.OnChange
	// keep says which of c's files have versions; nil: all. The others
	// are passed over before they are hashed or named, so one never
	// stands for a versioned file (a skill's template changed in the
	// batch that deletes its SKILL.md is no rename of it).
	keep func(rel string) bool

	mu   sync.Mutex
	seen map[string]string // path → hash of the content last handed on or loaded
	name map[string]string // path → name it defined, for deletions
}

// Load loads c, then notes what each file's name is, so a later deletion
// can say which history it ends.
func (v *versioned) Load(fsys fs.FS) error {
	if err := v.Contents.Load(fsys); err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.name = map[string]string{}
	for _, p := range v.Contents.Paths() {
		if v.kept(p) {
			v.name[p] = v.nameOf(p, nil)
		}
	}
	return nil
}

func (v *versioned) Apply(changes []registry.Change) {
	v.Contents.Apply(changes)
	for _, fc := range v.changed(changes) {
		v.on(fc)
	}
}

// changed is the changes that are new content, as FileChanged values.
func (v *versioned) changed(changes []registry.Change) []registry.FileChanged {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.name == nil {
		v.name = map[string]string{}
	}
	var out, deleted []registry.FileChanged
	added := map[string]bool{}
	for _, c := range changes {
		src := c.Source
		if src == "" {
			src = registry.SourceFiles
		}
		switch {
		case !v.kept(c.Path):
			continue
		case c.Err != nil:
			continue // unreadable: nothing to keep
		case c.Deleted:
			name, known := v.name[c.Path]
			if !known {
				continue
			}
			delete(v.seen, c.Path)
			delete(v.name, c.Path)
			deleted = append(deleted, registry.FileChanged{Kind: v.kind, Name: name, Path: c.Path, Deleted: true, Source: src})
		default:
			h := registry.Hash(c.Data)
			if v.seen[c.Path] == h {
				continue
			}
			v.seen[c.Path] = h
			name := v.nameOf(c.Path, c.Data)
			v.name[c.Path] = name
			added[name] = true
			out = append(out, registry.FileChanged{Kind: v.kind, Name: name, Path: c.Path, Data: c.Data, Source: src, Note: c.Note})
		}
	}
	for _, d := range deleted {
		if !added[d.Name] {
			out = append(out, d)
		}
	}
	return out
}

func (v *versioned) kept(rel string) bool { return v.keep == nil || v.keep(rel) }

// Sourced is a Folder's Write, Rename and Delete with the source of the
// change set, so the version each save makes says who made it: the web
// editor saves through Sourced(f, registry.SourceWeb), the JSON API
// through Sourced(f, registry.SourceAPI). It satisfies the web's Files.
func Sourced(f *Folder, src registry.Source) *Writer { return &Writer{f: f, src: src} }

// Writer saves files of a Folder for one source; see Sourced.
type Writer struct {
	f   *Folder
	src registry.Source
}

// Write is Folder.Write, recorded as the writer's source.
func (w *Writer) Write(path string, data []byte, expectHash string) (string, error) {
	return w.f.write(path, data, expectHash, registry.Change{Source: w.src})
}

// WriteNoted is Write whose version says why it was made ("restore of
// 3f2a9c1d"), before its diff summary.
func (w *Writer) WriteNoted(path string, data []byte, expectHash, note string) (string, error) {
	return w.f.write(path, data, expectHash, registry.Change{Source: w.src, Note: note})
}

// Rename is Folder.Rename, recorded as the writer's source.
func (w *Writer) Rename(oldPath, newPath, expectHash string) error {
	return w.f.rename(oldPath, newPath, expectHash, w.src)
}

// Delete is Folder.Delete, recorded as the writer's source.
func (w *Writer) Delete(path, expectHash string) error {
	return w.f.delete(path, expectHash, w.src)
}

// VersionedAgents is Agents(reg, opts) handing each change on as
// Versioned does, the agent's id taken from the snapshot that the change
// made (the file's own name for one too broken to say).
func VersionedAgents(reg *registry.Registry, opts registry.Options, on registry.OnChange) Contents {
	nameOf := func(rel string, data []byte) string {
		if f, ok := reg.Snapshot().File(rel); ok && f.Agent != "" {
			return f.Agent
		}
		return registry.NameOf(rel, data)
	}
	return Versioned(Agents(reg, opts), registry.KindAgent, nameOf, on)
}

// VersionedSkills is the root of cat that Catalog.Add(root) makes,
// handing on the changes of its skills' SKILL.md files as Versioned does,
// each named by its skill's id (SkillName). Only SKILL.md has versions: a
// version is one file's content, and a skill's other files are listed,
// not read. A root of another kind (commands, plugins) hands on nothing.
func VersionedSkills(cat *skills.Catalog, root skills.Root, on registry.OnChange) Contents {
	c := cat.Add(root)
	if root.Kind != skills.RootSkills {
		return c
	}
	nameOf := func(rel string, _ []byte) string { return SkillName(cat.Snapshot(), root.Label, rel) }
	v := Versioned(c, registry.KindSkill, nameOf, on).(*versioned)
	v.keep = func(rel string) bool { return path.Base(rel) == skills.FileName }
	return v
}

// SkillName is the id of the skill whose folder holds rel, a path relative
// to the root labelled label: the library's, else (a SKILL.md too broken
// to serve) the folder's name.
func SkillName(lib *skills.Library, label, rel string) string {
	if f, ok := lib.File(label + "/" + rel); ok && f.ID != "" {
		return f.ID
	}
	dir, _, _ := strings.Cut(rel, "/")
	return dir
}
