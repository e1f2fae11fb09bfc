package folder

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// A file of the folder that is a symbolic link is read through its
// target, which may be where no event of the folder's watches names it: a
// folder that is not watched (a hidden one, node_modules), or a path that
// does not exist yet (helper.md -> ../shared/helper.md, made before the
// shared folder). So the Folder keeps, for each such link whose target is
// or will be inside the folder, the way to its target: the nearest folder
// on it that exists, watched (with a watch of its own when the folder's
// watches do not cover it), and the entry there on the way. An event that
// names either reads the link again, and the watch moves down the way as
// the target's folders are made, as OpenAwaiting's does for a missing
// folder. A link whose target is outside the folder is refused on reading
// as ever (FS.check), so its target is never watched.

// linkWay is the way from a link to its target: the nearest existing
// folder on it (watched) and the entry of that folder on the way (the
// target itself once its folder exists).
type linkWay struct{ dir, next string }

// trackLink records the way to the target of the file at rel when it is a
// link whose target is or will be inside the folder, and forgets it
// otherwise. It reports whether it added a watch: what the new watch
// covers may have been made before it took, so the caller reads the link
// again.
func (f *Folder) trackLink(rel string) bool {
	target, ok := linkTarget(f.abs(rel))
	ok = ok && target != f.dir && within(f.dir, target)
	f.watchMu.Lock()
	defer f.watchMu.Unlock()
	way, had := f.links[rel]
	if !ok {
		if had {
			f.untrackLocked(rel, way)
		}
		return false
	}
	dir := existingAncestor(target)
	now := linkWay{dir: dir, next: childToward(dir, target)}
	if had && way == now {
		return false
	}
	if had {
		f.untrackLocked(rel, way)
	}
	f.links[rel] = now
	f.byWay[now.dir] = append(f.byWay[now.dir], rel)
	f.byWay[now.next] = append(f.byWay[now.next], rel)
	f.linkWatches[now.dir]++
	if f.linkWatches[now.dir] > 1 || f.watched[now.dir] {
		return false
	}
	if err := f.watcher.Add(now.dir); err != nil {
		f.log.Warn("watch the way to a link's target", "link", rel, "dir", now.dir, "err", err)
		return false
	}
	return true
}

// untrackLink forgets the link at rel, if it was tracked (a deleted file).
func (f *Folder) untrackLink(rel string) {
	f.watchMu.Lock()
	defer f.watchMu.Unlock()
	if way, ok := f.links[rel]; ok {
		f.untrackLocked(rel, way)
	}
}

// untrackLocked forgets the link at rel, whose way was way, and drops the
// watch of its own no other link needs; f.watchMu must be held.
func (f *Folder) untrackLocked(rel string, way linkWay) {
	delete(f.links, rel)
	for _, p := range []string{way.dir, way.next} {
		f.byWay[p] = slices.DeleteFunc(f.byWay[p], func(l string) bool { return l == rel })
		if len(f.byWay[p]) == 0 {
			delete(f.byWay, p)
		}
	}
	if f.linkWatches[way.dir]--; f.linkWatches[way.dir] > 0 {
		return
	}
	delete(f.linkWatches, way.dir)
	if !f.watched[way.dir] {
		_ = f.watcher.Remove(way.dir) // fsnotify drops the watch of a removed folder by itself
	}
}

// linksAt are the links whose way an event at the absolute path p is on:
// their target's folder or one on the way to it, or the target itself.
func (f *Folder) linksAt(p string) []string {
	f.watchMu.Lock()
	defer f.watchMu.Unlock()
	return append([]string(nil), f.byWay[p]...)
}

// linkTarget is where the symbolic link at p leads, absolute with its
// links resolved; ok is false when p is no link. A target that does not
// exist yet is followed as far as it does (through links made before
// their targets too, as linkedTo does), its existing part resolved.
func linkTarget(p string) (target string, ok bool) {
	li, err := os.Lstat(p)
	if err != nil || li.Mode()&fs.ModeSymlink == 0 {
		return "", false
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real, true
	}
	q := linkedTo(p)
	anc := existingAncestor(q)
	real, err := filepath.EvalSymlinks(anc)
	if err != nil {
		return "", false
	}
	rest, err := filepath.Rel(anc, q)
	if err != nil {
		return "", false
	}
	return filepath.Join(real, rest), true
}
