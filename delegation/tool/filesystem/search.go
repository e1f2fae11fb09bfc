package filesystem

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
)

func (w *Workspace) glob() tool.Tool {
	return tool.Typed(model.Tool{
		Name:        "filesystem.glob",
		Description: "Find workspace files whose slash-separated path matches a glob; ** matches any number of directories.",
		Parameters:  tool.Schema(map[string]string{"pattern": `{"type":"string","description":"e.g. **/*.go or docs/*.md"}`}, "pattern"),
	}, func(ctx context.Context, a struct{ Pattern string }) (string, error) {
		if _, err := local(strings.ReplaceAll(a.Pattern, "*", "x")); err != nil {
			return "", err
		}
		if _, err := path.Match(strings.ReplaceAll(a.Pattern, "**", "*"), ""); err != nil {
			return "", fmt.Errorf("%w: pattern %q: %v", tool.ErrInvalidArgs, a.Pattern, err)
		}
		out, err := w.walk(ctx, ".", func(out []string, p string, _ fs.DirEntry) []string {
			if matchGlob(a.Pattern, p) {
				out = append(out, p)
			}
			return out
		})
		if err != nil {
			return "", fsErr("glob", a.Pattern, err)
		}
		return lines(out, "no files match"), nil
	})
}

// matchGlob matches a slash-separated name against a pattern in which a "**"
// segment stands for zero or more directories.
func matchGlob(pattern, name string) bool {
	return matchSegs(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if matchSegs(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

func (w *Workspace) grep() tool.Tool {
	return tool.Typed(model.Tool{
		Name:        "filesystem.grep",
		Description: "Search workspace files for a regular expression (Go syntax); prints path:line: text for each match.",
		Parameters: tool.Schema(map[string]string{
			"pattern": `{"type":"string"}`,
			"path":    `{"type":"string","description":"directory or file to search; default ."}`,
			"glob":    `{"type":"string","description":"only files whose path matches this glob"}`,
		}, "pattern"),
	}, func(ctx context.Context, a struct{ Pattern, Path, Glob string }) (string, error) {
		re, err := regexp.Compile(a.Pattern)
		if err != nil {
			return "", fmt.Errorf("%w: pattern: %v", tool.ErrInvalidArgs, err)
		}
		dir, err := local(a.Path)
		if err != nil {
			return "", err
		}
		out, err := w.walk(ctx, filepath.ToSlash(dir), func(out []string, p string, d fs.DirEntry) []string {
			if a.Glob != "" && !matchGlob(a.Glob, p) {
				return out
			}
			return w.grepFile(re, p, d, out)
		})
		if err != nil {
			return "", fsErr("grep", a.Path, err)
		}
		return lines(out, "no matches"), nil
	})
}

func (w *Workspace) grepFile(re *regexp.Regexp, p string, d fs.DirEntry, out []string) []string {
	if info, err := d.Info(); err != nil || info.Size() > MaxGrepFile {
		return out
	}
	f, err := w.openRead("grep", p)
	if err != nil {
		return out // unreadable, escaping or hidden state
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil || bytes.IndexByte(data, 0) >= 0 {
		return out // unreadable or binary
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), MaxGrepFile)
	for n := 1; sc.Scan() && len(out) < MaxMatches; n++ {
		if re.Match(sc.Bytes()) {
			out = append(out, fmt.Sprintf("%s:%d: %s", p, n, sc.Text()))
		}
	}
	return out
}

// walk visits the regular files under dir (a local path) in lexical order,
// not following symbolic links to directories and passing .git* folders
// over, and returns what found adds to the list for each: glob's and
// grep's search, which stops at MaxMatches lines or when ctx ends.
func (w *Workspace) walk(ctx context.Context, dir string, found func(out []string, p string, d fs.DirEntry) []string) ([]string, error) {
	var out []string
	err := fs.WalkDir(w.root.FS(), dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".git") {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if out = found(out, p, d); len(out) >= MaxMatches || ctx.Err() != nil {
			return fs.SkipAll
		}
		return nil
	})
	return out, err
}

// lines is a search's answer: what it found, one a line, or none.
func lines(found []string, none string) string {
	if len(found) == 0 {
		return none
	}
	return strings.Join(found, "\n")
}
