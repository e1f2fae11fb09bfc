package folder

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/agentry/agentry/registry"
)

// Write saves data at path (relative to the folder, slash-separated) as a
// compare-and-swap on disk: under the folder's save lock (shared with other
// agentry processes), the file is read and hashed again, and replaced only
// if it still has expectHash, through a synced temp file swapped in
// atomically. expectHash "" means the file must not exist yet. A mismatch
// returns ErrConflict, an existing file on create ErrExists, a path that is
// not a clean .md path inside the folder (or a symlink) ErrInvalidPath (all
// wrapped). The registry is updated before Write returns, so the caller
// sees its own write.
func (f *Folder) Write(path string, data []byte, expectHash string) (string, error) {
	return f.write(path, data, expectHash, registry.Change{})
}

// write is Write with the change's source and note (Sourced).
func (f *Folder) write(path string, data []byte, expectHash string, how registry.Change) (string, error) {
	if f.later != nil { // a save into a folder not made yet makes it
		g, err := f.later.create()
		if err != nil {
			return "", err
		}
		return g.write(path, data, expectHash, how)
	}
	rel, err := f.clean(path)
	if err != nil {
		return "", err
	}
	s, err := stage(f.abs(rel), data)
	if err == nil {
		defer s.discard()
		err = f.locked(func() error {
			if expectHash == "" {
				return createNew(f.abs(rel), s)
			}
			return replaceChecked(f.abs(rel), s, expectHash)
		})
	}
	if err != nil {
		f.refused(rel, err)
		return "", fmt.Errorf("save %s: %w", rel, err)
	}
	f.applyLocked([]registry.Change{{Path: rel, Data: data, Source: how.Source, Note: how.Note}})
	return registry.Hash(data), nil
}

// errNoHash refuses a delete or rename that does not say which version the
// caller saw: it would skip the conflict check.
var errNoHash = fmt.Errorf("%w: no hash of the version that was read was given", registry.ErrConflict)

// Rename moves a file to newPath if it still has expectHash; newPath must
// not exist (ErrExists). An empty expectHash is refused (ErrConflict).
func (f *Folder) Rename(oldPath, newPath, expectHash string) error {
	return f.rename(oldPath, newPath, expectHash, "")
}

func (f *Folder) rename(oldPath, newPath, expectHash string, src registry.Source) error {
	if g := f.opened(); g != f {
		if g == nil {
			return f.errMissing()
		}
		return g.rename(oldPath, newPath, expectHash, src)
	}
	from, err := f.clean(oldPath)
	if err != nil {
		return err
	}
	to, err := f.clean(newPath)
	if err != nil {
		return err
	}
	if expectHash == "" {
		return fmt.Errorf("rename %s: %w", from, errNoHash)
	}
	var data []byte
	err = f.locked(func() (err error) {
		data, err = moveChecked(f.abs(from), f.abs(to), expectHash)
		return err
	})
	if err != nil {
		f.refused(from, err)
		return fmt.Errorf("rename %s to %s: %w", from, to, err)
	}
	f.applyLocked([]registry.Change{{Path: from, Deleted: true, Source: src}, {Path: to, Data: data, Source: src}})
	return nil
}

// Delete removes a file if it still has expectHash; a file deleted since it
// was read and an empty expectHash are refused (ErrConflict).
func (f *Folder) Delete(path, expectHash string) error {
	return f.delete(path, expectHash, "")
}

func (f *Folder) delete(path, expectHash string, src registry.Source) error {
	if g := f.opened(); g != f {
		if g == nil {
			return f.errMissing()
		}
		return g.delete(path, expectHash, src)
	}
	rel, err := f.clean(path)
	if err != nil {
		return err
	}
	if expectHash == "" {
		return fmt.Errorf("delete %s: %w", rel, errNoHash)
	}
	if err := f.locked(func() error { return removeChecked(f.abs(rel), expectHash) }); err != nil {
		f.refused(rel, err)
		return fmt.Errorf("delete %s: %w", rel, err)
	}
	f.applyLocked([]registry.Change{{Path: rel, Deleted: true, Source: src}})
	return nil
}

// refused re-reads the file a save was refused for as a conflict, before
// the refusal is returned: the caller shows what is on disk next to its own
// version, and the watcher may not have delivered the other program's
// write yet (it waits for the debounce), so without this the conflict page
// would show the version the caller already had, and a second Save would
// be refused again.
func (f *Folder) refused(rel string, err error) {
	if errors.Is(err, registry.ErrConflict) || errors.Is(err, registry.ErrExists) {
		f.applyLocked(f.read(rel))
	}
}

// applyLocked installs changes into the contents under f.mu.
func (f *Folder) applyLocked(changes []registry.Change) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.apply(changes)
}

// clean validates a caller's path: relative, slash-separated, no "..",
// not hidden, ending in .md, and not leading out through a symlink.
func (f *Folder) clean(p string) (string, error) {
	rel := filepath.ToSlash(p)
	if !fs.ValidPath(rel) || rel == "." || strings.Contains(p, "\\") || !f.contents.IsFile(rel) {
		return "", fmt.Errorf("%w: %q (want a relative path to one of the %s folder's files)", registry.ErrInvalidPath, p, f.contents.Name())
	}
	parent := filepath.Dir(f.abs(rel))
	for parent != f.dir {
		real, err := filepath.EvalSymlinks(parent)
		if err == nil {
			if real != f.dir && !strings.HasPrefix(real, f.dir+string(filepath.Separator)) {
				return "", fmt.Errorf("%w: %q leads outside the %s folder", registry.ErrInvalidPath, p, f.contents.Name())
			}
			break
		}
		parent = filepath.Dir(parent) // not created yet: check the nearest existing ancestor
	}
	return rel, nil
}
