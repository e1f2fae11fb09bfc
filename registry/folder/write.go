package folder

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentry/agentry/registry"
)

// Write saves data at path (relative to the folder, slash-separated)
// atomically: a temp file in the same folder, synced, then renamed over
// the target. expectHash is the Hash of the content the caller read; ""
// means the file must not exist yet. A mismatch returns ErrConflict, an
// existing file on create ErrExists, a path that is not a clean .md path
// inside the folder ErrInvalidPath (all wrapped). The registry is updated
// before Write returns, so the caller sees its own write.
func (f *Folder) Write(path string, data []byte, expectHash string) (string, error) {
	rel, err := f.clean(path)
	if err != nil {
		return "", err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.expect(rel, expectHash); err != nil {
		return "", fmt.Errorf("save %s: %w", rel, err)
	}
	if err := writeAtomic(f.abs(rel), data); err != nil {
		return "", fmt.Errorf("save %s: %w", rel, err)
	}
	f.apply(f.reg.Snapshot(), []registry.Change{{Path: rel, Data: data}})
	return registry.Hash(data), nil
}

// Rename moves a file to newPath if it still has expectHash; newPath must
// not exist (ErrExists). expectHash "" skips the content check.
func (f *Folder) Rename(oldPath, newPath, expectHash string) error {
	from, err := f.clean(oldPath)
	if err != nil {
		return err
	}
	to, err := f.clean(newPath)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.expect(from, cmp.Or(expectHash, "(any)")); err != nil {
		return fmt.Errorf("rename %s: %w", from, err)
	}
	if err := f.expect(to, ""); err != nil {
		return fmt.Errorf("rename %s to %s: %w", from, to, err)
	}
	data, err := os.ReadFile(f.abs(from))
	if err != nil {
		return fmt.Errorf("rename %s: %w", from, err)
	}
	if err := os.MkdirAll(filepath.Dir(f.abs(to)), 0o755); err != nil {
		return fmt.Errorf("rename %s: %w", from, err)
	}
	if err := os.Rename(f.abs(from), f.abs(to)); err != nil {
		return fmt.Errorf("rename %s: %w", from, err)
	}
	f.apply(f.reg.Snapshot(), []registry.Change{{Path: from, Deleted: true}, {Path: to, Data: data}})
	return nil
}

// Delete removes a file if it still has expectHash ("" skips the check);
// a missing file is ErrNotFound.
func (f *Folder) Delete(path, expectHash string) error {
	rel, err := f.clean(path)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.expect(rel, cmp.Or(expectHash, "(any)")); err != nil {
		return fmt.Errorf("delete %s: %w", rel, err)
	}
	if err := os.Remove(f.abs(rel)); err != nil {
		return fmt.Errorf("delete %s: %w", rel, err)
	}
	f.apply(f.reg.Snapshot(), []registry.Change{{Path: rel, Deleted: true}})
	return nil
}

// expect checks the file at rel against the hash the caller read: "" means
// it must not exist, "(any)" only that it exists.
func (f *Folder) expect(rel, hash string) error {
	data, err := os.ReadFile(f.abs(rel))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if hash == "" {
			return nil
		}
		if hash == "(any)" {
			return registry.ErrNotFound
		}
		return fmt.Errorf("%w (it was deleted)", registry.ErrConflict)
	case err != nil:
		return err
	case hash == "":
		return registry.ErrExists
	case hash != "(any)" && registry.Hash(data) != hash:
		return registry.ErrConflict
	}
	return nil
}

// clean validates a caller's path: relative, slash-separated, no "..",
// not hidden, ending in .md, and not leading out through a symlink.
func (f *Folder) clean(p string) (string, error) {
	rel := filepath.ToSlash(p)
	if !fs.ValidPath(rel) || rel == "." || strings.Contains(p, "\\") || !registry.IsAgentFile(rel) {
		return "", fmt.Errorf("%w: %q (want a relative path ending in .md inside the agents folder)", registry.ErrInvalidPath, p)
	}
	parent := filepath.Dir(f.abs(rel))
	for parent != f.dir {
		real, err := filepath.EvalSymlinks(parent)
		if err == nil {
			if real != f.dir && !strings.HasPrefix(real, f.dir+string(filepath.Separator)) {
				return "", fmt.Errorf("%w: %q leads outside the agents folder", registry.ErrInvalidPath, p)
			}
			break
		}
		parent = filepath.Dir(parent) // not created yet: check the nearest existing ancestor
	}
	return rel, nil
}

// writeAtomic writes data to a temp file beside target and renames it
// over target, so readers see the old or the new file, never a mix.
func writeAtomic(target string, data []byte) error {
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if info, err := os.Stat(target); err == nil {
		mode = info.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, ".agentry-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), target)
}
