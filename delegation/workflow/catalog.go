package workflow

import (
	"cmp"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentry/agentry/registry"
)

// IsFile reports whether a slash path, relative to the workflows folder,
// names a workflow file: a *.yaml or *.yml file directly in the folder, not
// hidden. Subfolders (scripts/, whose script models are YAML too) are not
// workflows.
func IsFile(rel string) bool {
	base := path.Base(rel)
	return !strings.Contains(rel, "/") && !strings.HasPrefix(base, ".") &&
		(strings.HasSuffix(base, ".yaml") && len(base) > 5 || strings.HasSuffix(base, ".yml") && len(base) > 4)
}

// Stem is a workflow file's name without its extension, which the web
// addresses it by.
func Stem(rel string) string {
	base := path.Base(rel)
	return strings.TrimSuffix(strings.TrimSuffix(base, ".yaml"), ".yml")
}

// File is the state of one workflow file in a Set.
type File struct {
	// Path is relative to the workflows folder.
	Path string
	// Hash is registry.Hash of the content read, for conflict checks.
	Hash string
	// Name is the workflow's name, from the served version ("" if none).
	Name     string
	Problems Problems
	// Stale is true when the file is broken and its last good version is
	// still served.
	Stale bool
}

// VersionName is what the file's versions are listed under: its
// workflow's name, else its file's stem (a file that never parsed).
func (f File) VersionName() string { return cmp.Or(f.Name, Stem(f.Path)) }

// entry is one file's content and what was made of it; immutable.
type entry struct {
	path       string
	data       []byte
	hash       string
	unreadable bool
	probs      Problems
	current    *Workflow // nil when the content has errors
	served     *Workflow // current, or the last good version when broken
}

// Set is one consistent, immutable view of the workflow files; any number
// of goroutines may read it.
type Set struct {
	version uint64
	entries map[string]*entry
	paths   []string // sorted
	byName  map[string]*entry
	dups    map[string]Problem // path → the warning that its name is taken
}

// Version increases by one with every change of the Set.
func (s *Set) Version() uint64 { return s.version }

// Files returns every workflow file sorted by path.
func (s *Set) Files() []File {
	out := make([]File, 0, len(s.paths))
	for _, p := range s.paths {
		out = append(out, s.file(s.entries[p]))
	}
	return out
}

// File returns the state of the file at path.
func (s *Set) File(path string) (File, bool) {
	e, ok := s.entries[path]
	if !ok {
		return File{}, false
	}
	return s.file(e), true
}

// ByStem finds a file by its name without extension (.yaml before .yml).
func (s *Set) ByStem(stem string) (File, bool) {
	for _, ext := range []string{".yaml", ".yml"} {
		if f, ok := s.File(stem + ext); ok {
			return f, true
		}
	}
	return File{}, false
}

// Workflow returns the workflow served from the file at path: its current
// version, or the last good one while the file is broken.
func (s *Set) Workflow(path string) (*Workflow, bool) {
	e, ok := s.entries[path]
	if !ok || e.served == nil {
		return nil, false
	}
	return e.served, true
}

// Named returns the workflow with that name (the first file by path when
// several define it).
func (s *Set) Named(name string) (*Workflow, bool) {
	e, ok := s.byName[name]
	if !ok {
		return nil, false
	}
	return e.served, true
}

// Raw returns the bytes of the file at path as last read, also for files
// that do not parse.
func (s *Set) Raw(path string) ([]byte, bool) {
	e, ok := s.entries[path]
	if !ok {
		return nil, false
	}
	return slices.Clone(e.data), true
}

// Problems returns every problem of every file, by file then line.
func (s *Set) Problems() Problems {
	var out Problems
	for _, p := range s.paths {
		out = append(out, s.file(s.entries[p]).Problems...)
	}
	return out
}

func (s *Set) file(e *entry) File {
	f := File{Path: e.path, Hash: e.hash, Problems: slices.Clone(e.probs), Stale: e.current == nil && e.served != nil}
	if e.served != nil {
		f.Name = e.served.Name
	}
	if d, ok := s.dups[e.path]; ok {
		f.Problems = append(f.Problems, d)
	}
	return f
}

// Catalog holds the current Set of a workflows folder and lets it be
// replaced while readers keep the Set they hold. registry/folder keeps it
// in step with the folder (as folder.Contents); all methods are safe for
// concurrent use.
type Catalog struct {
	lookup Lookup

	mu      sync.Mutex // serialises changes
	cur     atomic.Pointer[Set]
	changes registry.Changes
}

// NewCatalog returns an empty catalog. lookup says which registry agents
// exist when a file is parsed (nil accepts any name); it is asked at parse
// time, so after the agents change call Recheck.
func NewCatalog(lookup Lookup) *Catalog {
	c := &Catalog{lookup: lookup}
	c.cur.Store(&Set{entries: map[string]*entry{}, byName: map[string]*entry{}, dups: map[string]Problem{}})
	return c
}

// Snapshot returns the current Set without locking.
func (c *Catalog) Snapshot() *Set { return c.cur.Load() }

// Subscribe returns a channel that receives a signal after each change
// (see registry.Changes).
func (c *Catalog) Subscribe() (<-chan struct{}, func()) { return c.changes.Subscribe() }

// Name, IsFile, IsFolder, Load, Paths and Apply make a Catalog the
// folder.Contents of a workflows folder.

// Name is what the folder holds, for messages.
func (c *Catalog) Name() string { return "workflows" }

// IsFile is the package's IsFile.
func (c *Catalog) IsFile(rel string) bool { return IsFile(rel) }

// IsFolder is true for the folder itself only.
func (c *Catalog) IsFolder(rel string) bool { return rel == "." }

// Paths lists the files held now, sorted.
func (c *Catalog) Paths() []string { return slices.Clone(c.Snapshot().paths) }

// Load reads every workflow file of fsys.
func (c *Catalog) Load(fsys fs.FS) error {
	changes, err := registry.TopLevelChanges(fsys, IsFile)
	if err != nil {
		return fmt.Errorf("list workflow files: %w", err)
	}
	c.Apply(changes)
	return nil
}

// Apply installs changed files. A file whose new content has errors keeps
// serving its last good version; a file that cannot be read serves nothing.
func (c *Catalog) Apply(changes []registry.Change) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur := c.Snapshot()
	next := make(map[string]*entry, len(cur.entries)+len(changes))
	for p, e := range cur.entries {
		next[p] = e
	}
	changed := false
	for _, ch := range changes {
		prev := cur.entries[ch.Path]
		switch {
		case ch.Deleted:
			if prev == nil {
				continue
			}
			delete(next, ch.Path)
		case ch.Err != nil:
			next[ch.Path] = &entry{path: ch.Path, unreadable: true,
				probs: Problems{{File: ch.Path, Severity: registry.SeverityError, Message: "cannot read file: " + ch.Err.Error()}}}
		default:
			hash := hashOf(ch.Data)
			if prev != nil && !prev.unreadable && prev.hash == hash {
				continue
			}
			next[ch.Path] = c.parse(ch.Path, ch.Data, hash, prev)
		}
		changed = true
	}
	if changed {
		c.install(cur, next)
	}
}

// Recheck parses every file again with the lookup as it answers now: a
// workflow that names a registry agent becomes broken when that agent goes,
// and whole again when it comes back.
func (c *Catalog) Recheck() {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur := c.Snapshot()
	next := make(map[string]*entry, len(cur.entries))
	for p, e := range cur.entries {
		if e.unreadable {
			next[p] = e // nothing to parse
			continue
		}
		next[p] = c.parse(p, e.data, e.hash, e)
	}
	c.install(cur, next)
}

// parse makes the entry of the file at p, which holds data of that hash.
func (c *Catalog) parse(p string, data []byte, hash string, prev *entry) *entry {
	e := &entry{path: p, data: data, hash: hash}
	e.current, e.probs = c.parseLimited(p, data, hash)
	e.served = e.current
	if e.served == nil && prev != nil {
		e.served = prev.served
	}
	return e
}

// install makes a Set of entries current and signals the subscribers;
// c.mu is held.
func (c *Catalog) install(cur *Set, entries map[string]*entry) {
	s := &Set{version: cur.version + 1, entries: entries, byName: map[string]*entry{}, dups: map[string]Problem{}}
	s.paths = slices.Sorted(maps.Keys(entries))
	for _, p := range s.paths {
		e := entries[p]
		if e.served == nil {
			continue
		}
		if first, taken := s.byName[e.served.Name]; taken {
			s.dups[p] = Problem{File: p, Workflow: e.served.Name, Severity: registry.SeverityWarning, Line: e.served.Line,
				Message: fmt.Sprintf("workflow name %q is also used by %s, which is the one run by that name", e.served.Name, first.path)}
			continue
		}
		s.byName[e.served.Name] = e
	}
	c.cur.Store(s)
	c.changes.Notify()
}

// Check returns the problems the file at path would have if it held data,
// parsed with the catalog's lookup as it answers now. The editor calls it
// before saving.
func (c *Catalog) Check(path string, data []byte) Problems {
	_, probs := c.parseLimited(path, data, "") // the workflow is dropped: no hash needed
	return probs
}

// parseLimited is Parse with the agents' size limit: the folder reads a
// file only up to just past registry.MaxFileSize, so a bigger one is
// refused as too big rather than parsed cut short.
func (c *Catalog) parseLimited(path string, data []byte, hash string) (*Workflow, Problems) {
	if len(data) > registry.MaxFileSize {
		return nil, Problems{{File: path, Severity: registry.SeverityError,
			Message: fmt.Sprintf("file is larger than the %d-byte (1 MiB) limit", registry.MaxFileSize)}}
	}
	return parse(path, data, hash, c.lookup)
}
