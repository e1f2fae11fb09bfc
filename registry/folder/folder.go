package folder

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/agentry/agentry/registry"
)

// DefaultDebounce is how long the folder must be quiet before a reload.
const DefaultDebounce = 50 * time.Millisecond

// Config configures OpenConfig and OpenContents.
type Config struct {
	// Options validate the loaded agents (OpenConfig only).
	Options registry.Options
	// Log receives reload and watch errors; nil discards them.
	Log *slog.Logger
	// Debounce is the quiet time before a reload; 0 means DefaultDebounce.
	Debounce time.Duration
}

// Folder keeps its Contents (a Registry's agents, a catalog's workflows)
// in step with a directory. Its methods are safe for concurrent use.
type Folder struct {
	dir      string
	fsys     *FS
	contents Contents
	log      *slog.Logger
	debounce time.Duration
	watcher  *fsnotify.Watcher

	mu     sync.Mutex // serialises snapshot updates: reloads and writes
	saveMu sync.Mutex // serialises saves in this process; the lock file serialises processes

	watchMu sync.Mutex      // guards watched and the links' ways (links.go)
	watched map[string]bool // the folders watched, by absolute path
	// links are the ways to the targets of the files that are links
	// (by path), byWay the links by each folder and entry on a way, and
	// linkWatches how many links need each watch of a way's folder.
	links       map[string]linkWay
	byWay       map[string][]string
	linkWatches map[string]int

	later *awaiting // set when opened before the folder existed (OpenAwaiting)

	closeOnce sync.Once
	done      chan struct{}
	stopped   chan struct{}
}

// Open loads dir into reg and starts watching it (subfolders too, new
// subfolders included), debounced by DefaultDebounce.
func Open(dir string, reg *registry.Registry, opts registry.Options, log *slog.Logger) (*Folder, error) {
	return OpenConfig(dir, reg, Config{Options: opts, Log: log})
}

// OpenConfig is Open with every setting explicit.
func OpenConfig(dir string, reg *registry.Registry, cfg Config) (*Folder, error) {
	return OpenContents(dir, Agents(reg, cfg.Options), cfg)
}

// OpenContents loads dir into c and starts watching it, as Open does for
// agents; cfg.Options is not used (c validates).
func OpenContents(dir string, c Contents, cfg Config) (*Folder, error) {
	what := "open " + c.Name() + " folder"
	abs, err := resolve(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	fsys, err := openFS(abs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		fsys.Close()
		return nil, fmt.Errorf("%s: watch: %w", what, err)
	}
	f := newFolder(abs, fsys, c, cfg)
	f.watcher = w
	// Watch before loading, so nothing written in between is missed.
	if err := f.watchTree(abs); err != nil {
		w.Close()
		fsys.Close()
		return nil, err
	}
	if err := c.Load(f.fsys); err != nil {
		w.Close()
		fsys.Close()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	go f.loop()
	return f, nil
}

// newFolder is a Folder that neither watches nor has loaded anything yet.
func newFolder(abs string, fsys *FS, c Contents, cfg Config) *Folder {
	f := &Folder{
		dir: abs, fsys: fsys, contents: c, log: cfg.Log, debounce: cfg.Debounce,
		watched: map[string]bool{}, links: map[string]linkWay{}, byWay: map[string][]string{}, linkWatches: map[string]int{},
		done: make(chan struct{}), stopped: make(chan struct{}),
	}
	if f.log == nil {
		f.log = slog.New(slog.DiscardHandler)
	}
	if f.debounce <= 0 {
		f.debounce = DefaultDebounce
	}
	return f
}

// Dir returns the absolute path of the folder.
func (f *Folder) Dir() string {
	if g := f.opened(); g != f && g != nil {
		return g.Dir()
	}
	return f.dir
}

// opened is the Folder that reads and writes the directory: f itself, or
// for one opened before its directory existed the Folder opened when it
// appeared (nil until then).
func (f *Folder) opened() *Folder {
	if f.later == nil {
		return f
	}
	return f.later.current()
}

// errMissing is why a Folder whose directory does not exist yet cannot
// rename or delete.
func (f *Folder) errMissing() error {
	return fmt.Errorf("%s folder %s: %w", f.contents.Name(), f.dir, fs.ErrNotExist)
}

// Close stops watching; the registry keeps its last snapshot.
func (f *Folder) Close() error {
	var err error
	f.closeOnce.Do(func() {
		if f.later != nil {
			err = f.later.close(f.stopped)
			return
		}
		close(f.done)
		werr := f.watcher.Close()
		<-f.stopped
		err = errors.Join(werr, f.fsys.Close())
	})
	return err
}

// watchTree adds a watch on root and every folder below it that can hold
// the contents' files (for agents registry.IsAgentFolder, the tools' hidden
// folders included), and the way to the target of each file there that is
// a link (links.go).
func (f *Folder) watchTree(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return fmt.Errorf("watch %s: %w", p, err)
			}
			return nil
		}
		if !d.IsDir() {
			if d.Type()&fs.ModeSymlink != 0 && f.contents.IsFile(f.rel(p)) {
				f.trackLink(f.rel(p))
			}
			return nil
		}
		if p != f.dir && !f.contents.IsFolder(f.rel(p)) {
			return fs.SkipDir
		}
		if err := f.watcher.Add(p); err != nil {
			return fmt.Errorf("watch %s: %w", p, err)
		}
		f.watchMu.Lock()
		f.watched[p] = true
		f.watchMu.Unlock()
		return nil
	})
}

// unwatchTree removes the watches on root and every folder below it and
// returns how many it removed; watches fsnotify had already dropped by
// itself (a deleted folder's, usually) are not counted.
//
// Most removed paths are files: they are answered from the watched set
// without listing every watch, so a delete of thousands of files costs no
// more per event than a map lookup.
func (f *Folder) unwatchTree(root string) int {
	f.watchMu.Lock()
	defer f.watchMu.Unlock()
	if !f.watched[root] {
		return 0 // not a folder: only folders are watched, each with its parent
	}
	n := 0
	for _, p := range f.watcher.WatchList() {
		if p != root && !strings.HasPrefix(p, root+string(filepath.Separator)) {
			continue
		}
		delete(f.watched, p)
		err := f.watcher.Remove(p)
		if errors.Is(err, fsnotify.ErrNonExistentWatch) {
			continue // removed meanwhile, by fsnotify itself
		}
		if err != nil {
			f.log.Debug("unwatch folder", "dir", p, "err", err)
		}
		n++
	}
	return n
}

// rel turns an absolute path under the folder into a slash path; "" when
// it is the folder itself or outside it.
func (f *Folder) rel(abs string) string {
	r, err := filepath.Rel(f.dir, abs)
	if err != nil || r == "." || strings.HasPrefix(r, "..") {
		return ""
	}
	return filepath.ToSlash(r)
}

func (f *Folder) abs(rel string) string {
	return filepath.Join(f.dir, filepath.FromSlash(rel))
}
