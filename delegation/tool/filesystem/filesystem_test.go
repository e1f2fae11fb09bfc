package filesystem

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/tool"
)

// setup makes a workspace with a few files, a secret outside it and symbolic
// links that point out of it.
func setup(t *testing.T) (*Workspace, string) {
	t.Helper()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	must(t, os.MkdirAll(filepath.Join(ws, "docs", "deep"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(ws, "docs", "a.md"), []byte("# Title\nhello world\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(ws, "docs", "deep", "b.md"), []byte("deep hello\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(base, "secret.txt"), []byte("top secret hello\n"), 0o644))
	must(t, os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(ws, "leak.txt")))
	must(t, os.Symlink(base, filepath.Join(ws, "outside")))
	must(t, os.Symlink("docs/a.md", filepath.Join(ws, "inside.md")))
	w, err := Open(ws)
	must(t, err)
	t.Cleanup(func() { w.Close() })
	return w, base
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func call(t *testing.T, w *Workspace, name string, args any) (string, error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	for _, tl := range w.Tools() {
		if tl.Spec().Name == name {
			return tl.Call(context.Background(), raw)
		}
	}
	t.Fatalf("no tool %s", name)
	return "", nil
}

func TestToolsAreSortedAndNamedInTheFilesystemGroup(t *testing.T) {
	w, _ := setup(t)
	got := strings.Join(tool.Names(w.Tools()), ",")
	want := "filesystem.edit_file,filesystem.glob,filesystem.grep,filesystem.list_dir,filesystem.read_file,filesystem.write_file"
	if got != want {
		t.Fatalf("names = %s", got)
	}
	for i, tl := range w.Tools() {
		if tl.Spec().Name != tool.Names(w.Tools())[i] || !json.Valid(tl.Spec().Parameters) {
			t.Fatalf("tool %d out of order or bad schema: %s", i, tl.Spec().Parameters)
		}
	}
}

func TestPathsThatEscapeTheWorkspaceAreRefused(t *testing.T) {
	w, base := setup(t)
	cases := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"reading through .. is refused", "filesystem.read_file", map[string]any{"path": "../secret.txt"}},
		{"reading a nested .. that leaves is refused", "filesystem.read_file", map[string]any{"path": "docs/../../secret.txt"}},
		{"reading an absolute path is refused", "filesystem.read_file", map[string]any{"path": filepath.Join(base, "secret.txt")}},
		{"reading through a symlinked file is refused", "filesystem.read_file", map[string]any{"path": "leak.txt"}},
		{"reading through a symlinked directory is refused", "filesystem.read_file", map[string]any{"path": "outside/secret.txt"}},
		{"listing a parent is refused", "filesystem.list_dir", map[string]any{"path": ".."}},
		{"listing through a symlinked directory is refused", "filesystem.list_dir", map[string]any{"path": "outside"}},
		{"writing through .. is refused", "filesystem.write_file", map[string]any{"path": "../new.txt", "content": "x"}},
		{"writing through a symlinked directory is refused", "filesystem.write_file", map[string]any{"path": "outside/new.txt", "content": "x"}},
		{"writing over a symlink to outside is refused", "filesystem.write_file", map[string]any{"path": "leak.txt", "content": "x"}},
		{"editing through a symlink is refused", "filesystem.edit_file", map[string]any{"path": "leak.txt", "old_string": "top", "new_string": "x"}},
		{"grepping a parent is refused", "filesystem.grep", map[string]any{"pattern": "hello", "path": "../"}},
		{"globbing a parent is refused", "filesystem.glob", map[string]any{"pattern": "../*"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := call(t, w, c.tool, c.args)
			if !errors.Is(err, ErrEscape) {
				t.Fatalf("got %q, %v; want ErrEscape", out, err)
			}
		})
	}
	data, _ := os.ReadFile(filepath.Join(base, "secret.txt"))
	if string(data) != "top secret hello\n" {
		t.Fatalf("secret changed: %q", data)
	}
	if _, err := os.Stat(filepath.Join(base, "new.txt")); err == nil {
		t.Fatal("a file was written outside the workspace")
	}
}

func TestGrepAndGlobDoNotFollowLinksOut(t *testing.T) {
	w, _ := setup(t)
	out, err := call(t, w, "filesystem.grep", map[string]any{"pattern": "hello"})
	must(t, err)
	if strings.Contains(out, "secret") || !strings.Contains(out, "docs/a.md:2: hello world") || !strings.Contains(out, "docs/deep/b.md:1: deep hello") {
		t.Fatalf("grep = %q", out)
	}
	out, err = call(t, w, "filesystem.glob", map[string]any{"pattern": "**/*.md"})
	must(t, err)
	if out != "docs/a.md\ndocs/deep/b.md" {
		t.Fatalf("glob = %q", out)
	}
	out, _ = call(t, w, "filesystem.glob", map[string]any{"pattern": "*.go"})
	if out != "main.go" {
		t.Fatalf("glob *.go = %q", out)
	}
	out, _ = call(t, w, "filesystem.grep", map[string]any{"pattern": "hello", "glob": "docs/deep/*"})
	if out != "docs/deep/b.md:1: deep hello" {
		t.Fatalf("grep with glob = %q", out)
	}
}

func TestReadingListingWritingAndEditingInsideTheWorkspace(t *testing.T) {
	w, _ := setup(t)
	out, err := call(t, w, "filesystem.read_file", map[string]any{"path": "inside.md"})
	if err != nil || out != "# Title\nhello world\n" {
		t.Fatalf("read via inner symlink = %q, %v", out, err)
	}
	out, _ = call(t, w, "filesystem.read_file", map[string]any{"path": "docs/a.md", "offset": 2, "limit": 5})
	if !strings.HasPrefix(out, "Title") || !strings.Contains(out, "truncated") {
		t.Fatalf("partial read = %q", out)
	}
	out, _ = call(t, w, "filesystem.list_dir", map[string]any{"path": "docs"})
	if out != "a.md\ndeep/" {
		t.Fatalf("list = %q", out)
	}
	_, err = call(t, w, "filesystem.write_file", map[string]any{"path": "new/dir/c.txt", "content": "one two two"})
	must(t, err)
	_, err = call(t, w, "filesystem.edit_file", map[string]any{"path": "new/dir/c.txt", "old_string": "two", "new_string": "2"})
	if err == nil || !strings.Contains(err.Error(), "occurs 2 times") {
		t.Fatalf("ambiguous edit err = %v", err)
	}
	_, err = call(t, w, "filesystem.edit_file", map[string]any{"path": "new/dir/c.txt", "old_string": "two", "new_string": "2", "replace_all": true})
	must(t, err)
	out, _ = call(t, w, "filesystem.read_file", map[string]any{"path": "new/dir/c.txt"})
	if out != "one 2 2" {
		t.Fatalf("after edit = %q", out)
	}
}

func TestBadArgumentsAreInvalidArgs(t *testing.T) {
	w, _ := setup(t)
	for _, tl := range w.Tools() {
		if _, err := tl.Call(context.Background(), json.RawMessage(`{"path": 1`)); !errors.Is(err, tool.ErrInvalidArgs) {
			t.Errorf("%s with broken JSON: %v", tl.Spec().Name, err)
		}
	}
	if _, err := call(t, w, "filesystem.grep", map[string]any{"pattern": "("}); !errors.Is(err, tool.ErrInvalidArgs) {
		t.Errorf("bad regexp: %v", err)
	}
}

func TestGrepAndGlobStopAtMaxMatchesPassGitOverAndSayWhenNothingMatches(t *testing.T) {
	w, _ := setup(t)
	root := w.root.Name()
	must(t, os.MkdirAll(filepath.Join(root, "many"), 0o755))
	for i := range MaxMatches + 5 {
		must(t, os.WriteFile(filepath.Join(root, "many", fmt.Sprintf("%03d.txt", i)), []byte("needle\n"), 0o644))
	}
	must(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte("needle\n"), 0o644))
	cases := []struct {
		name  string
		tool  string
		args  map[string]any
		lines int
		first string
	}{
		{"glob lists MaxMatches files", "filesystem.glob", map[string]any{"pattern": "many/*.txt"}, MaxMatches, "many/000.txt"},
		{"grep lists MaxMatches lines", "filesystem.grep", map[string]any{"pattern": "needle"}, MaxMatches, "many/000.txt:1: needle"},
		{"grep passes .git over", "filesystem.grep", map[string]any{"pattern": "needle", "glob": ".git/*"}, 1, "no matches"},
		{"glob says no file matches", "filesystem.glob", map[string]any{"pattern": "*.none"}, 1, "no files match"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := call(t, w, c.tool, c.args)
			must(t, err)
			got := strings.Split(out, "\n")
			if len(got) != c.lines || got[0] != c.first {
				t.Errorf("%d lines from %q; want %d from %q", len(got), got[0], c.lines, c.first)
			}
		})
	}
}
