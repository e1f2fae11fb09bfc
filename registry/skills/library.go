package skills

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"

	"github.com/agentry/agentry/registry"
)

// Library is one consistent, immutable view of every skill and command the
// catalog's roots hold; any number of goroutines may read it. Skills and
// commands are served by ID; a plugin's skill or command whose name another
// one has too gets the ID "plugin.name", so installing a plugin never
// renames what was there, and among items that still share an ID the
// first root (in the order the roots were added) and then the smallest
// path serves, the others being reported.
type Library struct {
	version  uint64
	skills   []Skill // sorted by ID
	skillIdx map[string]int
	commands []Command // sorted by ID
	cmdIdx   map[string]int
	files    []File // sorted by Path
	fileIdx  map[string]int
	problems []registry.Problem
	where    map[string]source // Path → where to read and write it
}

// File is the state of one SKILL.md or command file.
type File struct {
	// Path is the file under its root's label ("skills/pdf/SKILL.md"), as
	// problems name it.
	Path string `json:"path"`
	// Kind is "skill" or "command".
	Kind string `json:"kind"`
	// ID is the skill or command the file serves ("" when it serves none).
	ID       string             `json:"id"`
	Plugin   string             `json:"plugin,omitempty"`
	Hash     string             `json:"hash"`
	Problems []registry.Problem `json:"problems"`
	// Stale is set when the file is broken and its last good version is
	// still served.
	Stale bool `json:"stale"`
}

// source is where a library file lives: its root's files and its path
// there.
type source struct {
	fsys fs.FS
	root Root
	rel  string
}

// Version increases with every change.
func (l *Library) Version() uint64 { return l.version }

// Skills returns every served skill sorted by ID. The slices inside are
// shared: do not modify them.
func (l *Library) Skills() []Skill { return slices.Clone(l.skills) }

// Skill returns the skill with that ID; Claude Code's "plugin:name"
// spelling finds "plugin.name".
func (l *Library) Skill(id string) (Skill, bool) {
	i, ok := l.skillIdx[registry.NormalizeItemID(id)]
	if !ok {
		return Skill{}, false
	}
	return l.skills[i], true
}

// Commands returns every served command sorted by ID.
func (l *Library) Commands() []Command { return slices.Clone(l.commands) }

// Command returns the command with that ID ("plugin:name" finds
// "plugin.name" too).
func (l *Library) Command(id string) (Command, bool) {
	i, ok := l.cmdIdx[registry.NormalizeItemID(id)]
	if !ok {
		i, ok = l.cmdIdx[id]
	}
	if !ok {
		return Command{}, false
	}
	return l.commands[i], true
}

// Files returns every SKILL.md and command file sorted by path.
func (l *Library) Files() []File {
	out := slices.Clone(l.files)
	for i := range out {
		out[i].Problems = slices.Clone(out[i].Problems)
	}
	return out
}

// File returns the state of the file at path (as File.Path).
func (l *Library) File(p string) (File, bool) {
	i, ok := l.fileIdx[p]
	if !ok {
		return File{}, false
	}
	f := l.files[i]
	f.Problems = slices.Clone(f.Problems)
	return f, true
}

// Problems returns every problem of every file, by file then line.
func (l *Library) Problems() []registry.Problem { return slices.Clone(l.problems) }

// Open opens a file of a skill's folder (a slash path relative to it;
// SKILL.md included) for reading, confined to that folder.
func (l *Library) Open(id, file string) (fs.File, error) {
	s, ok := l.Skill(id)
	if !ok {
		return nil, fmt.Errorf("open %s: %w", id, ErrUnknownSkill)
	}
	src, ok := l.where[s.Root+"/"+s.File()]
	if !ok || !fs.ValidPath(file) || file == "." {
		return nil, fmt.Errorf("open %s/%s: %w", id, file, fs.ErrNotExist)
	}
	return src.fsys.Open(path.Join(s.Dir, file))
}

// Raw reads library file p (a File's Path) from its root as the library
// reads it: confined to the root, so a link out of it is refused, and no
// larger than registry.MaxFileSize.
func (l *Library) Raw(p string) ([]byte, error) {
	src, ok := l.where[p]
	if !ok {
		return nil, fmt.Errorf("read %s: %w", p, fs.ErrNotExist)
	}
	return registry.ReadLimited(src.fsys, src.rel)
}

// Location returns the root and the root-relative path of a library file
// (as File.Path), for a caller that writes it.
func (l *Library) Location(p string) (Root, string, bool) {
	src, ok := l.where[p]
	return src.root, src.rel, ok
}

// pluginPrefixed returns the IDs items get: base, or "plugin.base" for an
// item of a plugin whose base another item has too.
func pluginPrefixed(bases, plugins []string) []string {
	count := map[string]int{}
	for _, b := range bases {
		count[b]++
	}
	out := make([]string, len(bases))
	for i, b := range bases {
		out[i] = b
		if plugins[i] != "" && count[b] > 1 {
			out[i] = plugins[i] + "." + b
		}
	}
	return out
}

// sortFiles orders library files and indexes them.
func (l *Library) index() {
	slices.SortFunc(l.files, func(a, b File) int { return cmp.Compare(a.Path, b.Path) })
	l.fileIdx = make(map[string]int, len(l.files))
	for i, f := range l.files {
		l.fileIdx[f.Path] = i
		l.problems = append(l.problems, f.Problems...)
	}
	slices.SortFunc(l.skills, func(a, b Skill) int { return cmp.Compare(a.ID, b.ID) })
	l.skillIdx = make(map[string]int, len(l.skills))
	for i, s := range l.skills {
		l.skillIdx[s.ID] = i
	}
	slices.SortFunc(l.commands, func(a, b Command) int { return cmp.Compare(a.ID, b.ID) })
	l.cmdIdx = make(map[string]int, len(l.commands))
	for i, c := range l.commands {
		l.cmdIdx[c.ID] = i
	}
}

// Errors that callers branch on.
var (
	// ErrUnknownSkill means no served skill has that id.
	ErrUnknownSkill = errors.New("unknown skill")
	// ErrUnknownCommand means no served command has that id.
	ErrUnknownCommand = errors.New("unknown command")
)
