package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentry/agentry/delegation/tool"
)

// protect mounts agentry's own state (Config.Protected) over the
// sandbox's view: read-only, or hidden (an empty read-only folder, or
// /dev/null for a file), so that a command can neither change it nor,
// for hidden state, read it. Only what a command could otherwise reach
// needs it: everything inside the workspace, and hidden state outside it
// that no private tmpfs covers already.
//
// Inside the workspace, a protected path that does not exist yet is
// created empty first (an empty config file or folder means the same to
// agentry as none), since a command could otherwise create it; and the
// folders between the workspace and it are bound onto themselves, since a
// command could otherwise rename one away and put a folder of its own,
// with a state file of its own, in its place (a mount point cannot be
// renamed or removed).
//
// A protected path that a symbolic link inside the workspace leads to is
// refused: a command could replace the link, which no mount can pin.
func (s *Shell) protect(private []string) ([]mount, error) {
	var ms []mount
	pinned := map[string]bool{}
	for _, lexical := range s.cfg.Protected {
		if err := throughLink(lexical, s.cfg.Workspace); err != nil {
			return nil, err
		}
	}
	for _, p := range tool.Resolved(s.cfg.Protected) {
		inside := under(p.Path, s.cfg.Workspace)
		if !inside && (!p.Hidden || coveredBy(p.Path, private)) {
			continue
		}
		fi, err := os.Stat(p.Path)
		if err != nil && (!inside || placeholder(p) != nil) {
			continue
		}
		isDir := p.Dir
		if fi != nil {
			isDir = fi.IsDir()
		}
		for dir := filepath.Dir(p.Path); inside && under(dir, s.cfg.Workspace) && !pinned[dir]; dir = filepath.Dir(dir) {
			pinned[dir] = true
			ms = append(ms, mount{op: "--bind", path: dir})
		}
		switch {
		case !p.Hidden:
			ms = append(ms, mount{op: "--ro-bind", path: p.Path})
		case isDir:
			ms = append(ms, mount{op: "--tmpfs", path: p.Path}, mount{op: "--remount-ro", path: p.Path})
		default:
			ms = append(ms, mount{op: "--ro-bind", src: os.DevNull, path: p.Path})
		}
	}
	return ms, nil
}

// throughLink refuses a protected path reached through a symbolic link
// inside the workspace.
func throughLink(p tool.Protected, workspace string) error {
	abs, err := filepath.Abs(p.Path)
	if err != nil {
		return nil
	}
	for dir := abs; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		entry := filepath.Join(tool.RealPath(filepath.Dir(dir)), filepath.Base(dir)) // where this entry really is
		if fi, err := os.Lstat(entry); err == nil && fi.Mode()&os.ModeSymlink != 0 && under(entry, workspace) {
			return fmt.Errorf("%s (%s) is reached through the symbolic link %s inside the workspace, which a command could replace: configure the path it leads to", p.What, p.Path, entry)
		}
	}
	return nil
}

// placeholder creates a missing protected path empty, so that it can be
// mounted over.
func placeholder(p tool.Protected) error {
	if p.Dir {
		return os.MkdirAll(p.Path, 0o755)
	}
	if err := os.MkdirAll(filepath.Dir(p.Path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p.Path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// under reports whether path lies strictly below dir.
func under(path, dir string) bool {
	return strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// coveredBy reports whether path is one of dirs or lies below one.
func coveredBy(path string, dirs []string) bool {
	for _, d := range dirs {
		if path == d || under(path, d) {
			return true
		}
	}
	return false
}
