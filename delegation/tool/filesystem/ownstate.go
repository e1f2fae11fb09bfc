package filesystem

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/agentry/agentry/delegation/tool"
)

// agentry's own state (tool.Protected) inside the workspace: no tool
// writes it, and none reads what is hidden. A path is checked twice: as
// written, resolved through its symbolic links, before anything is
// created; and on the file actually opened, by the path the kernel gives
// its descriptor, so that a link swapped in between (by a shell command
// running beside the call) cannot lead a write into protected state.

// refuse returns the error for touching real, the real path of the
// model's path p, when it is protected against the access.
func (w *Workspace) refuse(op, p, real string, write bool) error {
	pr, ok := tool.Guard(w.own, real)
	if !ok || !write && !pr.Hidden {
		return nil
	}
	verb := "read"
	if write {
		verb = "change"
	}
	return fmt.Errorf("%s %q: %w: it is %s, which agents may not %s", op, p, tool.ErrOwnState, pr.What, verb)
}

// realOf resolves the model's local path p inside the workspace.
func (w *Workspace) realOf(p string) string {
	return tool.RealPath(filepath.Join(w.dir, p))
}

// opened checks the file f, opened for p, by the path of its descriptor.
func (w *Workspace) opened(op, p string, f *os.File, write bool) error {
	if len(w.own) == 0 {
		return nil
	}
	real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil {
		real = w.realOf(p)
	}
	return w.refuse(op, p, real, write)
}

// openRead opens the local path p for reading, unless it is hidden state.
func (w *Workspace) openRead(op, p string) (*os.File, error) {
	if err := w.refuse(op, p, w.realOf(p), false); err != nil {
		return nil, err
	}
	f, err := w.root.Open(p)
	if err != nil {
		return nil, fsErr(op, p, err)
	}
	if err := w.opened(op, p, f, false); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// write creates or replaces the local path p with data, creating missing
// parent folders, unless it is protected state.
func (w *Workspace) write(op, p string, data []byte, perm fs.FileMode) error {
	if err := w.refuse(op, p, w.realOf(p), true); err != nil {
		return err
	}
	if dir := filepath.Dir(p); dir != "." {
		if err := w.root.MkdirAll(dir, 0o755); err != nil {
			return fsErr(op, p, err)
		}
	}
	_, statErr := w.root.Lstat(p)
	f, err := w.root.OpenFile(p, os.O_WRONLY|os.O_CREATE, perm)
	if err != nil {
		return fsErr(op, p, err)
	}
	if err := w.opened(op, p, f, true); err != nil {
		f.Close()
		if statErr != nil {
			w.root.Remove(p) // it did not exist: leave nothing behind
		}
		return err
	}
	err = f.Truncate(0)
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return fsErr(op, p, err)
}
