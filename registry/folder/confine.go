package folder

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentry/agentry/registry"
)

// ErrOutside is why a file is not read: it is a symbolic link leading out
// of the watched folder. A link to /etc/passwd named like an agent would
// otherwise show that file in the raw view.
var ErrOutside = errors.New("symbolic link leads outside the watched folder")

// FS reads a folder of agent (or workflow) files through an os.Root, which
// refuses any path that resolves outside it, and names the link and its
// target when a file is refused for that. Folder and Load read through it;
// other loaders of such folders should too.
type FS struct {
	dir  string // absolute, symlinks resolved
	root *os.Root
	fsys fs.FS
}

var _ fs.ReadDirFS = (*FS)(nil)

// OpenFS opens dir for reading with links out of it refused; Close
// releases it.
func OpenFS(dir string) (*FS, error) {
	abs, err := resolve(dir)
	if err != nil {
		return nil, err
	}
	return openFS(abs)
}

// openFS is OpenFS for a dir already resolved.
func openFS(dir string) (*FS, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &FS{dir: dir, root: root, fsys: root.FS()}, nil
}

// Open opens name unless it is a symlink leading out of the folder.
func (c *FS) Open(name string) (fs.File, error) {
	real, err := c.check(name)
	if err != nil {
		return nil, err
	}
	return c.fsys.Open(real)
}

// ReadDir lists a folder; fs.WalkDir uses it.
func (c *FS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(c.fsys, name) }

// Close releases the folder.
func (c *FS) Close() error { return c.root.Close() }

// check refuses name when it is a symlink whose target, followed to the
// end, is not inside the folder, and otherwise returns the path to open:
// name itself, or for a link the file it leads to (os.Root refuses every
// absolute link, even one into the folder). os.Root refuses what check
// does not look at (a link in a parent folder).
func (c *FS) check(name string) (string, error) {
	p := filepath.Join(c.dir, filepath.FromSlash(name))
	li, err := os.Lstat(p)
	if err != nil || li.Mode()&fs.ModeSymlink == 0 {
		return name, nil
	}
	target, _ := os.Readlink(p)
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("symbolic link to %s leads nowhere: %w", target, err)}
	}
	rel, err := filepath.Rel(c.dir, real)
	if err != nil || !within(c.dir, real) || rel == "." {
		return "", &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w: it points to %s", ErrOutside, target)}
	}
	return filepath.ToSlash(rel), nil
}

// within reports whether path p is dir or below it.
func within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// Load reads the agent files of dir once, without watching, through the
// same confinement as a Folder: a symlink leading out of dir is listed
// with a problem and never read. Commands that do not watch (run,
// validate) use it instead of registry.Load(os.DirFS(dir)).
func Load(dir string, opts registry.Options) (*registry.Snapshot, error) {
	abs, err := resolve(dir)
	if err != nil {
		return nil, fmt.Errorf("load agents folder: %w", err)
	}
	c, err := openFS(abs)
	if err != nil {
		return nil, fmt.Errorf("load agents folder: %w", err)
	}
	defer c.Close()
	s, err := registry.Load(c, opts)
	if err != nil {
		return nil, fmt.Errorf("load agents folder: %w", err)
	}
	return s, nil
}

// LoadContents reads dir into c once, without watching, through the same
// confinement as a Folder. The files stay open for c to read later (a
// skill's files through skills.Library.Open) until close is called.
func LoadContents(dir string, c Contents) (close func() error, err error) {
	abs, err := resolve(dir)
	if err != nil {
		return nil, fmt.Errorf("load %s folder: %w", c.Name(), err)
	}
	fsys, err := openFS(abs)
	if err != nil {
		return nil, fmt.Errorf("load %s folder: %w", c.Name(), err)
	}
	if err := c.Load(fsys); err != nil {
		fsys.Close()
		return nil, fmt.Errorf("load %s folder: %w", c.Name(), err)
	}
	return fsys.Close, nil
}

// resolve makes dir absolute with its symlinks resolved, so a folder that
// is itself reached through a link is still one folder to confine to.
func resolve(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}
