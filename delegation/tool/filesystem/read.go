package filesystem

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
)

func (w *Workspace) readFile() tool.Tool {
	return tool.Typed(model.Tool{
		Name:        "filesystem.read_file",
		Description: "Read a text file of the workspace. Optional offset (bytes) and limit (bytes) read part of a large file.",
		Parameters: tool.Schema(map[string]string{
			"path":   `{"type":"string","description":"path relative to the workspace, or absolute inside a loaded skill's base directory"}`,
			"offset": `{"type":"integer","minimum":0}`,
			"limit":  `{"type":"integer","minimum":1}`,
		}, "path"),
	}, func(ctx context.Context, a struct {
		Path          string
		Offset, Limit int64
	}) (string, error) {
		f, err := w.openModelPath(ctx, "read", a.Path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		if a.Offset > 0 {
			if _, err := f.Seek(a.Offset, io.SeekStart); err != nil {
				return "", fsErr("read", a.Path, err)
			}
		}
		limit := int64(MaxReadBytes)
		if a.Limit > 0 && a.Limit < limit {
			limit = a.Limit
		}
		data, err := io.ReadAll(io.LimitReader(f, limit+1))
		if err != nil {
			return "", fsErr("read", a.Path, err)
		}
		if int64(len(data)) > limit {
			return string(data[:limit]) + fmt.Sprintf("\n[truncated at %d bytes; read on with offset %d]", limit, a.Offset+limit), nil
		}
		return string(data), nil
	})
}

func (w *Workspace) listDir() tool.Tool {
	return tool.Typed(model.Tool{
		Name:        "filesystem.list_dir",
		Description: "List a workspace directory, one entry a line; directories end with /.",
		Parameters:  tool.Schema(map[string]string{"path": `{"type":"string","description":"directory relative to the workspace (default .), or absolute inside a loaded skill's base directory"}`}),
	}, func(ctx context.Context, a struct{ Path string }) (string, error) {
		f, err := w.openModelPath(ctx, "list", a.Path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		entries, err := f.ReadDir(MaxListing + 1)
		if err != nil && err != io.EOF {
			return "", fsErr("list", a.Path, err)
		}
		names := make([]string, 0, len(entries))
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() {
				n += "/"
			}
			names = append(names, n)
		}
		slices.Sort(names)
		if len(names) > MaxListing {
			names = append(names[:MaxListing], "[more entries not shown]")
		}
		return strings.Join(names, "\n"), nil
	})
}
