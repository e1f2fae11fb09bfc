package eval

import (
	"errors"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/agentry/agentry/registry"
)

// SuiteFile is one suite file of an evals folder: its text, its hash for
// a compare-and-swap save, and the suite or why it does not parse.
type SuiteFile struct {
	Path  string
	Name  string
	Hash  string
	Data  []byte
	Suite *Suite // nil when Err is set
	Err   error
}

// Catalog is the suite files of an evals folder, kept current by a
// registry/folder watcher (it is a folder.Contents) and saved through it,
// so suites are edited with the agents' conflict checks. Only files at
// the folder's top level are suites. It is safe for concurrent use.
type Catalog struct {
	mu    sync.RWMutex
	files map[string]SuiteFile
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog { return &Catalog{files: map[string]SuiteFile{}} }

// Name says what the folder holds.
func (c *Catalog) Name() string { return "evals" }

// IsFile reports whether rel is a suite file: a .yaml or .yml at the top
// level that is not a .script.yaml.
func (c *Catalog) IsFile(rel string) bool { return path.Dir(rel) == "." && IsFile(rel) }

// IsFolder reports whether rel may hold suites: only the folder itself.
func (c *Catalog) IsFolder(rel string) bool { return rel == "." }

// Load reads every suite of fsys.
func (c *Catalog) Load(fsys fs.FS) error {
	changes, err := registry.TopLevelChanges(fsys, c.IsFile)
	if err != nil {
		return err
	}
	c.Apply(changes)
	return nil
}

// Paths lists the suite files held, sorted.
func (c *Catalog) Paths() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return slices.Sorted(maps.Keys(c.files))
}

// Apply installs changed files.
func (c *Catalog) Apply(changes []registry.Change) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ch := range changes {
		switch {
		case ch.Deleted:
			delete(c.files, ch.Path)
		case ch.Err != nil:
			c.files[ch.Path] = SuiteFile{Path: ch.Path, Name: SuiteName(ch.Path), Err: ch.Err}
		default:
			f := SuiteFile{Path: ch.Path, Name: SuiteName(ch.Path), Hash: registry.Hash(ch.Data), Data: ch.Data}
			f.Suite, f.Err = Parse(ch.Path, ch.Data)
			c.files[ch.Path] = f
		}
	}
}

// Files returns every suite file sorted by path.
func (c *Catalog) Files() []SuiteFile {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]SuiteFile, 0, len(c.files))
	for _, f := range c.files {
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b SuiteFile) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// ErrNoSuite is returned by Suite for a name no file has.
var ErrNoSuite = errors.New("no such eval suite")

// File returns the suite file named name (its name without extension).
func (c *Catalog) File(name string) (SuiteFile, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, f := range c.files {
		if f.Name == name {
			return f, nil
		}
	}
	return SuiteFile{}, ErrNoSuite
}
