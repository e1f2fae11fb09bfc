package folder

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// OpenAwaiting is OpenContents for a folder that may not exist yet: the
// skills, plugins, workflows and evals folders users create while serve
// runs (mkdir .claude/skills, agentry plugins add). A folder that exists is
// opened as OpenContents does. A missing one is awaited: the nearest
// existing ancestor is watched for the next part of the path to appear,
// part by part, and once the folder is there it is loaded and watched like
// any other (and confined the same way: a symbolic link created as the
// folder is followed as it would be at start, and links out of its target
// are refused). Until then the Folder holds nothing; Write creates the
// folder, Rename and Delete fail with fs.ErrNotExist.
func OpenAwaiting(dir string, c Contents, cfg Config) (*Folder, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open %s folder: %w", c.Name(), err)
	}
	if isDir(abs) {
		return OpenContents(abs, c, cfg)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("open %s folder: watch: %w", c.Name(), err)
	}
	f := newFolder(abs, nil, c, cfg)
	f.later = &awaiting{path: abs, c: c, cfg: cfg, watcher: w, log: f.log}
	go f.later.wait(f.stopped)
	return f, nil
}

// awaiting is the part of a Folder opened before its folder existed: the
// watch on the nearest existing ancestor, then the Folder opened once the
// folder appeared, to which every method of the awaiting one is passed on.
type awaiting struct {
	path    string // absolute, as configured
	c       Contents
	cfg     Config
	watcher *fsnotify.Watcher
	log     *slog.Logger

	opening sync.Mutex // one open at a time; held across the folder's first load
	mu      sync.Mutex // the state below, never held across I/O
	closed  bool
	opened  *Folder
}

// current is the opened Folder; nil while the folder is missing.
func (a *awaiting) current() *Folder {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.opened
}

// isClosed reports whether Close was called.
func (a *awaiting) isClosed() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.closed
}

// open opens the folder if it is there now, once; nil while it is not (or
// after Close). The load runs outside mu, so the folder's other methods
// do not wait on it.
func (a *awaiting) open() (*Folder, error) {
	a.opening.Lock()
	defer a.opening.Unlock()
	if f := a.current(); f != nil || a.isClosed() || !isDir(a.path) {
		return f, nil
	}
	f, err := OpenContents(a.path, a.c, a.cfg)
	if err != nil {
		return nil, err
	}
	// What the folder held when it appeared was made while serve ran:
	// read it once more as changes, so versioned contents record it as
	// they record edits (a load alone records nothing).
	if err := f.Sync(); err != nil {
		a.log.Warn("read "+a.c.Name()+" folder", "dir", a.path, "err", err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed { // closed while it loaded: Close found nothing to close
		return nil, f.Close()
	}
	a.opened = f
	return f, nil
}

// create makes the folder and opens it, for a save into a folder that
// does not exist yet.
func (a *awaiting) create() (*Folder, error) {
	if f := a.current(); f != nil {
		return f, nil
	}
	if a.isClosed() { // a closed Folder makes no folder
		return nil, fmt.Errorf("create %s folder %s: %w", a.c.Name(), a.path, fs.ErrClosed)
	}
	if err := os.MkdirAll(a.path, 0o755); err != nil {
		return nil, fmt.Errorf("create %s folder: %w", a.c.Name(), err)
	}
	f, err := a.open()
	if err == nil && f == nil {
		err = fmt.Errorf("open %s folder %s: %w", a.c.Name(), a.path, os.ErrNotExist)
	}
	return f, err
}

// close stops waiting and closes the opened Folder, if any.
func (a *awaiting) close(stopped <-chan struct{}) error {
	a.mu.Lock()
	a.closed = true
	f := a.opened
	a.mu.Unlock()
	err := a.watcher.Close()
	<-stopped
	if f != nil {
		err = errors.Join(err, f.Close())
	}
	return err
}

// wait watches the nearest existing ancestor of the folder and looks again
// whenever the next part of the path (or the ancestor itself) changes,
// until the folder is opened or the watch closed. After each new watch it
// looks once more, so a part made before the watch took is not missed.
// When a link on the way leads nowhere yet (linkedTo), the way to its
// target is watched too, so the folder opens when the target is made.
func (a *awaiting) wait(stopped chan struct{}) {
	defer close(stopped)
	var watched []string
	for {
		f, err := a.open()
		if err != nil {
			a.log.Warn("open "+a.c.Name()+" folder", "dir", a.path, "err", err)
		}
		if f != nil {
			a.watcher.Close()
			return
		}
		ancs, names := watchesToward(a.path, linkedTo(a.path))
		if !slices.Equal(ancs, watched) {
			for _, w := range watched {
				_ = a.watcher.Remove(w)
			}
			for _, anc := range ancs {
				if err := a.watcher.Add(anc); err != nil && !errors.Is(err, fsnotify.ErrClosed) {
					a.log.Warn("watch for "+a.c.Name()+" folder", "dir", anc, "err", err)
				}
			}
			watched = ancs
			continue
		}
		if !a.nextEvent(names) {
			return
		}
	}
}

// watchesToward is what to watch for the paths to appear: the nearest
// existing ancestor of each, and the names whose events count (each
// ancestor and its entry on the way).
func watchesToward(paths ...string) (ancs []string, names map[string]bool) {
	names = map[string]bool{}
	for _, p := range paths {
		anc := existingAncestor(p)
		if !slices.Contains(ancs, anc) {
			ancs = append(ancs, anc)
		}
		names[anc], names[childToward(anc, p)] = true, true
	}
	return ancs, names
}

// nextEvent waits for an event naming one of names; false once the watch
// is closed.
func (a *awaiting) nextEvent(names map[string]bool) bool {
	for {
		select {
		case ev, ok := <-a.watcher.Events:
			if !ok {
				return false
			}
			if names[ev.Name] {
				return true
			}
		case err, ok := <-a.watcher.Errors:
			if !ok {
				return false
			}
			a.log.Warn("watch for "+a.c.Name()+" folder", "err", err)
			return true // events may have been lost: look again
		}
	}
}

// maxLinks bounds the links linkedTo follows, as the kernel bounds a path
// resolution's.
const maxLinks = 40

// linkedTo is p with every link on its way that leads nowhere yet
// followed: a folder awaited through a link made before its target
// (agents -> ../shared/agents) is awaited at that target. It is p when no
// such link is on the way. The folder, once there, is still opened at p
// and confined to what p resolves to, as at start.
func linkedTo(p string) string {
	for range maxLinks {
		q, rest := p, ""
		for !exists(q) && filepath.Dir(q) != q {
			q, rest = filepath.Dir(q), filepath.Join(filepath.Base(q), rest)
		}
		li, err := os.Lstat(q)
		if err != nil || li.Mode()&fs.ModeSymlink == 0 {
			return p
		}
		if _, err := os.Stat(q); err == nil {
			return p // it leads somewhere, which existingAncestor follows
		}
		target, err := os.Readlink(q)
		if err != nil {
			return p
		}
		if !filepath.IsAbs(target) {
			dir, err := filepath.EvalSymlinks(filepath.Dir(q))
			if err != nil {
				return p
			}
			target = filepath.Join(dir, target)
		}
		p = filepath.Join(target, rest)
	}
	return p
}

// exists reports whether p is there, a link that leads nowhere included.
func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// existingAncestor is the nearest folder above p that exists (links
// followed); the root at worst.
func existingAncestor(p string) string {
	for {
		parent := filepath.Dir(p)
		if parent == p || isDir(parent) {
			return parent
		}
		p = parent
	}
}

// childToward is the entry of anc on the way to p.
func childToward(anc, p string) string {
	for filepath.Dir(p) != anc && filepath.Dir(p) != p {
		p = filepath.Dir(p)
	}
	return p
}

// isDir reports whether p is a folder, following links.
func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}
