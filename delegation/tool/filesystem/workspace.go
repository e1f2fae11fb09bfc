package filesystem

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentry/agentry/delegation/tool"
)

// ErrEscape is returned for a path outside the workspace.
var ErrEscape = errors.New("path escapes the workspace")

// Limits that keep a tool's answer small enough for a model's context.
const (
	MaxReadBytes  = 256 << 10 // read_file returns at most this much
	MaxGrepFile   = 1 << 20   // grep skips larger files
	MaxMatches    = 200       // grep and glob stop after this many
	MaxListing    = 1000      // list_dir entries
	maxWriteBytes = 4 << 20
)

// Workspace is a folder the tools are confined to. It is safe for concurrent use.
type Workspace struct {
	root *os.Root
	dir  string           // the folder's real path
	own  []tool.Protected // agentry's own state, resolved (ownstate.go)
}

// Open confines a Workspace to dir, which must exist. own is agentry's own
// state: the tools refuse to write it, and to read what of it is hidden,
// wherever in the workspace it sits.
func Open(dir string, own ...tool.Protected) (*Workspace, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	return &Workspace{root: r, dir: tool.RealPath(dir), own: tool.Resolved(own)}, nil
}

// Close releases the workspace's directory handle.
func (w *Workspace) Close() error { return w.root.Close() }

// Tools returns the six filesystem tools, sorted by name.
func (w *Workspace) Tools() []tool.Tool {
	return []tool.Tool{w.editFile(), w.glob(), w.grep(), w.listDir(), w.readFile(), w.writeFile()}
}

// local checks a model-given path and returns it in the form os.Root takes.
func local(p string) (string, error) {
	if p == "" || p == "." || p == "./" {
		return ".", nil
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("%q: %w (absolute paths are not allowed)", p, ErrEscape)
	}
	c := filepath.Clean(filepath.FromSlash(p))
	if !filepath.IsLocal(c) && c != "." {
		return "", fmt.Errorf("%q: %w", p, ErrEscape)
	}
	return c, nil
}

// fsErr turns os.Root's escape error into ErrEscape, so callers branch on one error.
func fsErr(op, p string, err error) error {
	if err == nil {
		return nil
	}
	if strings.Contains(err.Error(), "escapes from parent") || strings.Contains(err.Error(), "path escapes") {
		return fmt.Errorf("%s %q: %w (through a symbolic link)", op, p, ErrEscape)
	}
	return fmt.Errorf("%s %q: %w", op, p, err)
}
