package skills

import (
	"io/fs"
	"path"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/internal/files"
)

// Catalog holds the current Library of skills and commands, read from
// several roots (the project's skills folders, .claude/commands, the
// installed plugins), and lets it be replaced while readers keep the
// Library they hold. Each root is kept in step with its folder through its
// RootContents (registry/folder watches it). All methods are safe for
// concurrent use.
type Catalog struct {
	mu      sync.Mutex // serialises changes
	cur     atomic.Pointer[Library]
	changes registry.Changes
	roots   []*libRoot
}

// libRoot is the catalog's state of one root; guarded by Catalog.mu.
type libRoot struct {
	root   Root
	fsys   fs.FS
	skills map[string]*skillEntry // by skill folder, relative to the root
	cmds   map[string]*cmdEntry   // by file, relative to the root
}

// skillEntry is one skill folder: its SKILL.md (if any) and other files.
type skillEntry struct {
	dir, plugin string
	text        string // SKILL.md as last read
	hash        string
	hasFile     bool  // SKILL.md exists (a folder without one is no skill)
	readErr     error // SKILL.md is there but cannot be read
	files       map[string]int64
	current     *Skill // nil while SKILL.md has errors
	served      *Skill // current, or the last good version
	probs       []registry.Problem
}

// cmdEntry is one command file.
type cmdEntry struct {
	file, plugin string // file relative to its commands folder
	hash         string
	current      *Command
	served       *Command
	probs        []registry.Problem
}

// NewCatalog returns a catalog without roots.
func NewCatalog() *Catalog {
	c := &Catalog{}
	c.cur.Store(&Library{skillIdx: map[string]int{}, cmdIdx: map[string]int{}, fileIdx: map[string]int{}, where: map[string]source{}})
	return c
}

// Snapshot returns the current Library without locking.
func (c *Catalog) Snapshot() *Library { return c.cur.Load() }

// Subscribe returns a channel that receives a signal after each change
// (see Changes).
func (c *Catalog) Subscribe() (<-chan struct{}, func()) { return c.changes.Subscribe() }

// Add registers a root after those already added (earlier roots win a
// name both hold) and returns its RootContents, which a folder watcher
// loads and keeps current; LoadRoot loads it once without watching.
func (c *Catalog) Add(r Root) *RootContents {
	c.mu.Lock()
	defer c.mu.Unlock()
	lr := &libRoot{root: r, skills: map[string]*skillEntry{}, cmds: map[string]*cmdEntry{}}
	c.roots = append(c.roots, lr)
	return &RootContents{c: c, r: lr}
}

// RootContents is one root of a Catalog as registry/folder keeps it:
// which files are its own, and where changes go.
type RootContents struct {
	c *Catalog
	r *libRoot
}

// Name is the root's label, for messages.
func (rc *RootContents) Name() string { return rc.r.root.Label }

// IsFile reports whether a slash path relative to the root is one of the
// library's files: a skill folder's file or a command.
func (rc *RootContents) IsFile(rel string) bool { return isLibraryFile(rc.r.root.Kind, rel) }

// IsFolder reports whether a folder of the root can hold such files.
func (rc *RootContents) IsFolder(rel string) bool { return isLibraryFolder(rc.r.root.Kind, rel) }

// Paths lists the files held now, sorted.
func (rc *RootContents) Paths() []string {
	rc.c.mu.Lock()
	defer rc.c.mu.Unlock()
	var out []string
	for _, e := range rc.r.skills {
		if e.hasFile || e.readErr != nil {
			out = append(out, path.Join(e.dir, FileName))
		}
		for f := range e.files {
			out = append(out, path.Join(e.dir, f))
		}
	}
	for rel := range rc.r.cmds {
		out = append(out, rel)
	}
	slices.Sort(out)
	return out
}

// Load reads every file of the root from fsys, which stays the root's
// files for Library.Open: SKILL.md and command files are read and parsed
// (in parallel), the other files of skill folders only listed.
func (rc *RootContents) Load(fsys fs.FS) error {
	var changes []registry.Change
	sizes := map[string]int64{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			if p == "." {
				return err
			}
			return nil
		case d.IsDir():
			if !rc.IsFolder(p) {
				return fs.SkipDir
			}
			return nil
		case !rc.IsFile(p):
			return nil
		}
		if path.Base(p) == FileName || isCommand(rc.r.root.Kind, p) {
			changes = append(changes, registry.Change{Path: p})
			return nil
		}
		if info, err := d.Info(); err == nil {
			sizes[p] = info.Size()
		}
		return nil
	})
	if err != nil {
		return err
	}
	registry.ReadAll(fsys, changes)
	rc.c.mu.Lock()
	defer rc.c.mu.Unlock()
	r := rc.r
	r.fsys = fsys
	r.skills, r.cmds = map[string]*skillEntry{}, map[string]*cmdEntry{}
	for p, size := range sizes {
		r.file(p, size)
	}
	// Every skill's files are listed now: parse the SKILL.md files (most
	// of loading a folder) in parallel, each once.
	var parse []*skillEntry
	for _, ch := range changes {
		if dir, plugin, ok := skillDirOf(r.root.Kind, ch.Path); ok && ch.Err == nil && path.Base(ch.Path) == FileName && path.Dir(ch.Path) == dir {
			e := r.entry(dir, plugin)
			e.hasFile, e.text, e.hash = true, string(ch.Data), registry.Hash(ch.Data)
			parse = append(parse, e)
			continue
		}
		r.apply(ch)
	}
	files.Parallel(len(parse), func(i int) { r.reparse(parse[i]) })
	rc.c.install()
	return nil
}

// Apply installs changed files: a SKILL.md or command is parsed again, a
// skill's other file added or removed from its list (and the skill checked
// again, since its references may now resolve). A broken file keeps
// serving its last good version.
func (rc *RootContents) Apply(changes []registry.Change) {
	rc.c.mu.Lock()
	defer rc.c.mu.Unlock()
	for _, ch := range changes {
		if path.Base(ch.Path) != FileName && !isCommand(rc.r.root.Kind, ch.Path) && !ch.Deleted && ch.Err == nil {
			size := int64(len(ch.Data))
			if rc.r.fsys != nil {
				if info, err := fs.Stat(rc.r.fsys, ch.Path); err == nil {
					size = info.Size()
				}
			}
			rc.r.file(ch.Path, size)
			continue
		}
		rc.r.apply(ch)
	}
	rc.c.install()
}

// isCommand reports whether rel is a command file of a root of kind.
func isCommand(kind, rel string) bool {
	_, _, ok := commandOf(kind, rel)
	return ok
}
