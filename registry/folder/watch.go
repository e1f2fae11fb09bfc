package folder

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/agentry/agentry/registry"
)

// maxDelay caps how long continuous activity can postpone a reload, in
// debounce intervals.
const maxDelay = 8

// loop collects the paths events name and reloads them once the folder
// has been quiet for the debounce interval.
func (f *Folder) loop() { f.run(f.watcher.Events, f.watcher.Errors) }

// run is loop over any source of events, so tests can drive the debounce
// with their own events and a fake clock (testing/synctest).
func (f *Folder) run(events <-chan fsnotify.Event, errs <-chan error) {
	defer close(f.stopped)
	pending := map[string]bool{}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var first time.Time
	for {
		select {
		case <-f.done:
			timer.Stop()
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			if !f.note(ev, pending) {
				continue
			}
			if first.IsZero() {
				first = time.Now()
			}
			if time.Since(first) < maxDelay*f.debounce {
				timer.Reset(f.debounce)
			}
		case err, ok := <-errs:
			if !ok {
				return
			}
			f.log.Warn("watch "+f.contents.Name()+" folder", "dir", f.dir, "err", err)
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				pending["."] = true // events were lost: rescan everything
				timer.Reset(f.debounce)
			}
		case <-timer.C:
			f.reload(pending)
			pending, first = map[string]bool{}, time.Time{}
		}
	}
}

// note records the path an event names; false when the event is noise
// (chmod, hidden and editor backup files).
//
// A watched folder that is renamed or removed loses its watches, its
// subfolders' included, and the whole folder is rescanned. On Linux a
// watch follows the folder's inode, not its name: left in place, it keeps
// reporting events under the old path, and re-adding the folder under its
// new name hands back that same stale watch, so edits in a renamed folder
// would be missed.
func (f *Folder) note(ev fsnotify.Event, pending map[string]bool) bool {
	if ev.Op == fsnotify.Chmod {
		return false
	}
	rel := f.rel(ev.Name)
	if rel == "" {
		return false
	}
	rescan := false
	if ev.Has(fsnotify.Rename) || ev.Has(fsnotify.Remove) {
		rescan = f.unwatchTree(ev.Name) > 0
	}
	if rescan {
		pending["."] = true // re-adds the watches under the folder's new name
	}
	linked := f.linksAt(ev.Name) // on the way to a link's target: read the link again
	for _, l := range linked {
		pending[l] = true
	}
	if f.ignored(rel) {
		return rescan || len(linked) > 0
	}
	if ev.Has(fsnotify.Create) {
		if info, err := os.Stat(ev.Name); err == nil && info.IsDir() {
			if err := f.watchTree(ev.Name); err != nil {
				f.log.Warn("watch new folder", "dir", ev.Name, "err", err)
			}
		}
	}
	pending[rel] = true
	return true
}

// ignored reports paths that are never the contents' files nor folders of
// them: editors' backup and swap files, temp files, hidden files, and
// folders outside the discovery rule (Contents.IsFolder).
func (f *Folder) ignored(rel string) bool {
	base := path.Base(rel)
	if strings.HasSuffix(base, "~") || strings.HasSuffix(base, ".swp") || strings.HasSuffix(base, ".tmp") {
		return true
	}
	return !f.contents.IsFile(rel) && !f.contents.IsFolder(rel)
}

// reload re-reads the pending paths and swaps in one new snapshot if
// anything changed. Its cost follows the number of pending paths: a
// deleted path is looked up in an index of the snapshot's paths built once
// per reload, never by walking every file per event.
func (f *Folder) reload(pending map[string]bool) {
	if pending["."] {
		if err := f.Sync(); err != nil {
			f.log.Warn("rescan "+f.contents.Name()+" folder", "dir", f.dir, "err", err)
		}
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	idx := indexPaths(f.contents.Paths())
	look := f.newLookup(pending)
	var changes []registry.Change
	for rel := range pending {
		changes = append(changes, f.changesFor(idx, look, rel)...)
	}
	f.apply(changes)
}

// listAbove is how many pending paths in one folder make listing the
// folder once cheaper than a stat per path.
const listAbove = 16

// lookup answers what is at each pending path: one ReadDir for a folder
// with many pending paths (a mass delete or copy), a stat for the others.
type lookup struct {
	f       *Folder
	listing map[string]map[string]fs.FileMode // folder → name → type; empty when the folder is gone
}

func (f *Folder) newLookup(pending map[string]bool) *lookup {
	perDir := map[string]int{}
	for rel := range pending {
		perDir[path.Dir(rel)]++
	}
	l := &lookup{f: f, listing: map[string]map[string]fs.FileMode{}}
	for dir, n := range perDir {
		if n <= listAbove {
			continue
		}
		entries, err := os.ReadDir(f.abs(dir))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			continue // a stat per path will say more
		}
		names := make(map[string]fs.FileMode, len(entries))
		for _, e := range entries {
			names[e.Name()] = e.Type()
		}
		l.listing[dir] = names
	}
	return l
}

// typeOf returns the type bits of what is at rel without following a
// symlink (fs.ModeDir, fs.ModeSymlink, 0 for a regular file), or
// fs.ErrNotExist.
func (l *lookup) typeOf(rel string) (fs.FileMode, error) {
	if names, ok := l.listing[path.Dir(rel)]; ok {
		t, ok := names[path.Base(rel)]
		if !ok {
			return 0, fs.ErrNotExist
		}
		return t, nil
	}
	info, err := os.Lstat(l.f.abs(rel))
	if err != nil {
		return 0, err
	}
	return info.Mode().Type(), nil
}

// pathIndex is the sorted paths of the contents' files.
type pathIndex struct {
	paths []string
	has   map[string]bool
}

func indexPaths(paths []string) pathIndex {
	idx := pathIndex{paths: paths, has: make(map[string]bool, len(paths))}
	for _, p := range paths {
		idx.has[p] = true
	}
	return idx
}

// under returns the paths below folder dir, by binary search.
func (idx pathIndex) under(dir string) []string {
	prefix := dir + "/"
	i, _ := slices.BinarySearch(idx.paths, prefix)
	j := i
	for j < len(idx.paths) && strings.HasPrefix(idx.paths[j], prefix) {
		j++
	}
	return idx.paths[i:j]
}

// changesFor reads what is now at rel: a file, a folder (moved in or
// created), or nothing (deleted or moved away, with everything under it).
// A symlink is never followed into a folder; one named like an agent file
// is read, and refused there if it leads out of the folder.
func (f *Folder) changesFor(idx pathIndex, look *lookup, rel string) []registry.Change {
	typ, err := look.typeOf(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if idx.has[rel] {
			return []registry.Change{{Path: rel, Deleted: true}}
		}
		return deletionsUnder(idx, rel, nil)
	case err != nil:
		f.log.Warn("read "+f.contents.Name()+" file", "path", rel, "err", err)
		return nil
	case typ.IsDir():
		paths, err := pathsIn(f.contents, f.fsys, rel)
		if err != nil {
			f.log.Warn("read "+f.contents.Name()+" subfolder", "path", rel, "err", err)
			return nil
		}
		found := map[string]bool{}
		var changes []registry.Change
		for _, p := range paths {
			found[p] = true
			changes = append(changes, f.read(p)...)
		}
		return append(changes, deletionsUnder(idx, rel, found)...)
	case f.contents.IsFile(rel):
		return f.read(rel)
	}
	return nil
}

// read reads one file. A file that is there but may not be read (a
// link out of the folder, no permission) is kept in the registry with the
// reason as its problem, and whatever it held before is no longer served.
// A link is read again when the way to its target gained a watch, which
// may have come after its target was made.
func (f *Folder) read(rel string) []registry.Change {
	changes := f.readOnce(rel)
	for range maxLinks {
		if !f.trackLink(rel) {
			break
		}
		changes = f.readOnce(rel)
	}
	return changes
}

// readOnce is read without the link's way.
func (f *Folder) readOnce(rel string) []registry.Change {
	data, err := registry.ReadLimited(f.fsys, rel)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(f.abs(rel)); lerr != nil {
			return []registry.Change{{Path: rel, Deleted: true}}
		}
	}
	if err != nil {
		f.log.Warn("read "+f.contents.Name()+" file", "path", rel, "err", err)
		return []registry.Change{{Path: rel, Err: err}}
	}
	return []registry.Change{{Path: rel, Data: data}}
}

// deletionsUnder deletes the files below folder dir that are not in keep.
func deletionsUnder(idx pathIndex, dir string, keep map[string]bool) []registry.Change {
	var out []registry.Change
	for _, p := range idx.under(dir) {
		if !keep[p] {
			out = append(out, registry.Change{Path: p, Deleted: true})
		}
	}
	return out
}

// apply installs changes into the contents; f.mu must be held.
func (f *Folder) apply(changes []registry.Change) {
	if len(changes) == 0 {
		return
	}
	for _, c := range changes {
		if c.Deleted {
			f.untrackLink(c.Path)
		}
	}
	f.contents.Apply(changes)
	f.log.Debug(f.contents.Name()+" reloaded", "dir", f.dir, "changes", len(changes))
}

// Sync re-reads the whole folder now (also re-adding watches), for tests
// and a manual rescan.
func (f *Folder) Sync() error {
	if g := f.opened(); g != f {
		if g == nil {
			return nil // nothing to read yet
		}
		return g.Sync()
	}
	if err := f.watchTree(f.dir); err != nil {
		return err
	}
	paths, err := pathsIn(f.contents, f.fsys, ".")
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	found := map[string]bool{}
	var changes []registry.Change
	for _, p := range paths {
		found[p] = true
		changes = append(changes, f.read(p)...)
	}
	for _, p := range f.contents.Paths() {
		if !found[p] {
			changes = append(changes, registry.Change{Path: p, Deleted: true})
		}
	}
	f.apply(changes)
	return nil
}
