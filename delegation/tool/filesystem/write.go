package filesystem

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
)

func (w *Workspace) writeFile() tool.Tool {
	return tool.Typed(model.Tool{
		Name:        "filesystem.write_file",
		Description: "Create or replace a workspace file with the given content; missing parent directories are created.",
		Parameters: tool.Schema(map[string]string{
			"path":    `{"type":"string"}`,
			"content": `{"type":"string"}`,
		}, "path", "content"),
	}, func(_ context.Context, a struct{ Path, Content string }) (string, error) {
		if len(a.Content) > maxWriteBytes {
			return "", fmt.Errorf("%w: content is larger than %d bytes", tool.ErrInvalidArgs, maxWriteBytes)
		}
		p, err := local(a.Path)
		if err != nil {
			return "", err
		}
		if err := w.write("write", p, []byte(a.Content), 0o644); err != nil {
			return "", err
		}
		return fmt.Sprintf("wrote %d bytes to %s", len(a.Content), filepath.ToSlash(p)), nil
	})
}

func (w *Workspace) editFile() tool.Tool {
	return tool.Typed(model.Tool{
		Name: "filesystem.edit_file",
		Description: "Replace old_string with new_string in a workspace file. old_string must occur exactly once " +
			"unless replace_all is true.",
		Parameters: tool.Schema(map[string]string{
			"path":        `{"type":"string"}`,
			"old_string":  `{"type":"string"}`,
			"new_string":  `{"type":"string"}`,
			"replace_all": `{"type":"boolean"}`,
		}, "path", "old_string", "new_string"),
	}, func(_ context.Context, a struct {
		Path       string `json:"path"`
		Old        string `json:"old_string"`
		New        string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
	}) (string, error) {
		if a.Old == "" {
			return "", fmt.Errorf("%w: old_string is empty", tool.ErrInvalidArgs)
		}
		p, err := local(a.Path)
		if err != nil {
			return "", err
		}
		if err := w.refuse("edit", p, w.realOf(p), true); err != nil {
			return "", err // before reading: the file may be readable, never editable
		}
		f, err := w.openRead("edit", p)
		if err != nil {
			return "", err
		}
		data, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			return "", fsErr("edit", a.Path, err)
		}
		text := string(data)
		n := strings.Count(text, a.Old)
		switch {
		case n == 0:
			return "", fmt.Errorf("edit %q: old_string not found", a.Path)
		case n > 1 && !a.ReplaceAll:
			return "", fmt.Errorf("edit %q: old_string occurs %d times; give more context or set replace_all", a.Path, n)
		}
		text = strings.ReplaceAll(text, a.Old, a.New)
		info, err := w.root.Stat(p)
		if err != nil {
			return "", fsErr("edit", a.Path, err)
		}
		if err := w.write("edit", p, []byte(text), info.Mode().Perm()); err != nil {
			return "", err
		}
		return fmt.Sprintf("replaced %d occurrence(s) in %s", n, filepath.ToSlash(p)), nil
	})
}
