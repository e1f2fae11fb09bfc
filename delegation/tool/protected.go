package tool

import (
	"errors"
	"path/filepath"
	"strings"
)

// ErrOwnState is returned by a tool asked to touch one of agentry's own
// files or folders (a Protected path).
var ErrOwnState = errors.New("agentry's own state")

// Protected is one of agentry's own files or folders (DESIGN §12): what an
// agent runs must not change it, wherever it sits, since it holds what
// decides the agent's own permissions (agent files, workflows, the config)
// or the record of who approved what (the trace database). cmd/agentry
// lists them; the shell sandbox mounts each read-only or hides it, and the
// filesystem tools refuse them. A new kind of state (skills, plugins) is
// one more entry.
type Protected struct {
	// Path is the file or folder, absolute.
	Path string
	// What names it for messages: "the trace database".
	What string
	// Dir says the path is a folder, which matters when it does not exist
	// yet: the sandbox then mounts an empty folder of that name.
	Dir bool
	// Hidden keeps it from being read too (secrets in the config, other
	// runs' traces); otherwise it is read-only.
	Hidden bool
}

// Covers reports whether the absolute, symlink-free path p is this
// protected path or lies under it.
func (p Protected) Covers(path string) bool {
	return path == p.Path || strings.HasPrefix(path, strings.TrimSuffix(p.Path, "/")+"/")
}

// Resolved returns ps with each path made absolute and free of symbolic
// links (as far as it exists), so that they compare with the real paths a
// tool is about to touch.
func Resolved(ps []Protected) []Protected {
	out := make([]Protected, 0, len(ps))
	for _, p := range ps {
		if p.Path == "" {
			continue
		}
		p.Path = RealPath(p.Path)
		out = append(out, p)
	}
	return out
}

// RealPath is path made absolute with every symbolic link of its existing
// part resolved; the part that does not exist yet is kept as written.
func RealPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if dir == filepath.Dir(dir) {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// Guard finds the protected path that covers the real path p, if any.
func Guard(ps []Protected, p string) (Protected, bool) {
	for _, pr := range ps {
		if pr.Covers(p) {
			return pr, true
		}
	}
	return Protected{}, false
}
