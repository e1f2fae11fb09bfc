package filesystem

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentry/agentry/delegation/tool"
)

// A loaded Agent Skill's files are read where the skill tool says they are:
// under its base directory, an absolute path, which is usually outside the
// workspace (an installed plugin's skills). read_file and list_dir accept
// an absolute path inside the folder of a skill the invocation loaded
// (tool.Call.Skills) and read it through an os.Root of that folder, so a
// path cannot leave the skill's folder, through .. or a symbolic link.
// Nothing is ever written there; any other absolute path is refused as
// before.

// openSkillFile opens the model's path p for reading when it is an
// absolute path inside a loaded skill's folder; ok is false for any other
// path, which the workspace decides.
func openSkillFile(ctx context.Context, op, p string) (f *os.File, ok bool, err error) {
	if !filepath.IsAbs(p) {
		return nil, false, nil
	}
	sk := tool.CallFrom(ctx).Skills
	if sk == nil {
		return nil, false, nil
	}
	clean := filepath.Clean(p)
	for _, dir := range sk.Folders() {
		rel, err := filepath.Rel(dir, clean)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		root, err := os.OpenRoot(dir)
		if err != nil {
			return nil, true, fmt.Errorf("%s %q: %w", op, p, err)
		}
		defer root.Close()
		f, err := root.Open(rel)
		if err != nil {
			return nil, true, fsErr(op, p, err)
		}
		return f, true, nil
	}
	return nil, false, nil
}

// openModelPath opens what the model named: a workspace path, or a file of
// a loaded skill's folder.
func (w *Workspace) openModelPath(ctx context.Context, op, path string) (*os.File, error) {
	if f, ok, err := openSkillFile(ctx, op, path); ok {
		return f, err
	}
	p, err := local(path)
	if err != nil {
		if filepath.IsAbs(path) {
			err = fmt.Errorf("%w; an absolute path is read only inside the base directory of a skill you loaded", err)
		}
		return nil, err
	}
	return w.openRead(op, p)
}
