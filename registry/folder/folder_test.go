package folder

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/registry"
)

// waitLimit is generous: tests wait on signals, never on the clock, and
// the limit only turns a hang into a failure.
const waitLimit = 10 * time.Second

func agentText(name, desc string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\nYou are %s.\n", name, desc, name)
}

func writeFile(t testing.TB, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

type fixture struct {
	dir string
	reg *registry.Registry
	f   *Folder
	ch  <-chan struct{}
}

func open(t *testing.T, debounce time.Duration, files map[string]string) *fixture {
	t.Helper()
	dir := t.TempDir()
	for rel, text := range files {
		writeFile(t, dir, rel, text)
	}
	reg := registry.New(nil)
	f, err := OpenConfig(dir, reg, Config{Debounce: debounce})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return fixtureOf(t, dir, reg, f)
}

// fixtureOf is the fixture of f, open on dir into reg, closed when the
// test ends.
func fixtureOf(t *testing.T, dir string, reg *registry.Registry, f *Folder) *fixture {
	t.Helper()
	ch, cancel := reg.Subscribe()
	t.Cleanup(func() {
		cancel()
		if err := f.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return &fixture{dir: dir, reg: reg, f: f, ch: ch}
}

// waitFor returns the first snapshot for which ok holds, re-checking after
// every registry signal.
func (fx *fixture) waitFor(t *testing.T, what string, ok func(*registry.Snapshot) bool) *registry.Snapshot {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		if s := fx.reg.Snapshot(); ok(s) {
			return s
		}
		select {
		case <-fx.ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func description(s *registry.Snapshot, name string) string {
	a, _ := s.Agent(name)
	return a.Description
}

func TestOpenLoadsTheFolderWithSubfolders(t *testing.T) {
	fx := open(t, 0, map[string]string{"a.md": agentText("a", "A"), "team/b.md": agentText("b", "B")})
	s := fx.reg.Snapshot()
	if len(s.Agents()) != 2 || description(s, "b") != "B" {
		t.Fatalf("agents = %+v", s.Agents())
	}
	if fx.f.Dir() != fx.dir && !strings.HasSuffix(fx.f.Dir(), filepath.Base(fx.dir)) {
		t.Fatalf("Dir = %s", fx.f.Dir())
	}
}

func TestWatcherFollowsCreateChangeRenameAndDelete(t *testing.T) {
	fx := open(t, 0, map[string]string{"a.md": agentText("a", "A")})

	writeFile(t, fx.dir, "b.md", agentText("b", "first"))
	fx.waitFor(t, "created b", func(s *registry.Snapshot) bool { return description(s, "b") == "first" })

	writeFile(t, fx.dir, "b.md", agentText("b", "second"))
	fx.waitFor(t, "changed b", func(s *registry.Snapshot) bool { return description(s, "b") == "second" })

	if err := os.Rename(filepath.Join(fx.dir, "b.md"), filepath.Join(fx.dir, "c.md")); err != nil {
		t.Fatal(err)
	}
	s := fx.waitFor(t, "renamed b.md to c.md", func(s *registry.Snapshot) bool {
		_, oldThere := s.File("b.md")
		_, newThere := s.File("c.md")
		return !oldThere && newThere
	})
	if a, _ := s.Agent("b"); a.File != "c.md" {
		t.Fatalf("agent b is served from %q", a.File)
	}

	if err := os.Remove(filepath.Join(fx.dir, "c.md")); err != nil {
		t.Fatal(err)
	}
	fx.waitFor(t, "deleted c.md", func(s *registry.Snapshot) bool { _, ok := s.Agent("b"); return !ok })
}

func TestWatcherKeepsTheLastGoodVersionOfABrokenFile(t *testing.T) {
	fx := open(t, 0, map[string]string{"a.md": agentText("a", "good")})
	writeFile(t, fx.dir, "a.md", "---\nname: a\ndescription: [broken\n---\n")
	s := fx.waitFor(t, "the broken file", func(s *registry.Snapshot) bool { f, _ := s.File("a.md"); return f.Stale })
	f, _ := s.File("a.md")
	if description(s, "a") != "good" || len(f.Problems) != 1 || f.Problems[0].Line != 3 {
		t.Fatalf("served %q, file %+v", description(s, "a"), f)
	}
	writeFile(t, fx.dir, "a.md", agentText("a", "fixed"))
	fx.waitFor(t, "the fixed file", func(s *registry.Snapshot) bool {
		f, _ := s.File("a.md")
		return !f.Stale && description(s, "a") == "fixed"
	})
}

func TestWatcherWatchesNewSubfolders(t *testing.T) {
	fx := open(t, 0, nil)
	writeFile(t, fx.dir, "new/deeper/d.md", agentText("d", "one")) // created with its folders at once
	fx.waitFor(t, "d in a new folder", func(s *registry.Snapshot) bool { return description(s, "d") == "one" })
	writeFile(t, fx.dir, "new/deeper/d.md", agentText("d", "two")) // only seen if the new folder is watched
	fx.waitFor(t, "d changed", func(s *registry.Snapshot) bool { return description(s, "d") == "two" })
	if err := os.RemoveAll(filepath.Join(fx.dir, "new")); err != nil {
		t.Fatal(err)
	}
	fx.waitFor(t, "the folder removed", func(s *registry.Snapshot) bool { return len(s.Files()) == 0 })
}

func TestWriteCreatesUpdatesAndDetectsConflicts(t *testing.T) {
	fx := open(t, 0, nil)
	h1, err := fx.f.Write("team/a.md", []byte(agentText("a", "one")), "")
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if description(fx.reg.Snapshot(), "a") != "one" {
		t.Fatal("the registry did not see the write before Write returned")
	}
	if _, err := fx.f.Write("team/a.md", []byte(agentText("a", "dup")), ""); !errors.Is(err, registry.ErrExists) {
		t.Fatalf("create over an existing file: %v", err)
	}
	h2, err := fx.f.Write("team/a.md", []byte(agentText("a", "two")), h1)
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	_, err = fx.f.Write("team/a.md", []byte(agentText("a", "stale")), h1)
	if !errors.Is(err, registry.ErrConflict) || !strings.Contains(err.Error(), "changed on disk since it was opened") {
		t.Fatalf("write with a stale hash: %v", err)
	}
	writeFile(t, fx.dir, "team/a.md", agentText("a", "edited elsewhere"))
	if _, err := fx.f.Write("team/a.md", []byte(agentText("a", "mine")), h2); !errors.Is(err, registry.ErrConflict) {
		t.Fatalf("write over an outside edit: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(fx.dir, "team"))
	if len(entries) != 1 {
		t.Fatalf("folder holds %d entries, want only a.md (no temp files)", len(entries))
	}
}

func TestWriteRefusesPathsOutsideTheFolder(t *testing.T) {
	fx := open(t, 0, nil)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(fx.dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../x.md", "/etc/x.md", "a/../../x.md", "notes.txt", ".hidden.md", "", "a\\..\\..\\x.md", "link/x.md", "link/sub/x.md"} {
		if _, err := fx.f.Write(p, []byte(agentText("x", "X")), ""); !errors.Is(err, registry.ErrInvalidPath) {
			t.Errorf("Write(%q) = %v, want ErrInvalidPath", p, err)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatal("a file was written outside the folder")
	}
}

func TestRenameAndDeleteCheckTheHash(t *testing.T) {
	fx := open(t, 0, map[string]string{"a.md": agentText("a", "A"), "b.md": agentText("b", "B")})
	hash := registry.Hash([]byte(agentText("a", "A")))
	if err := fx.f.Rename("a.md", "b.md", hash); !errors.Is(err, registry.ErrExists) {
		t.Fatalf("rename onto an existing file: %v", err)
	}
	if err := fx.f.Rename("a.md", "x/a2.md", "wrong"); !errors.Is(err, registry.ErrConflict) {
		t.Fatalf("rename with a wrong hash: %v", err)
	}
	if err := fx.f.Rename("a.md", "x/a2.md", hash); err != nil {
		t.Fatalf("rename: %v", err)
	}
	if a, _ := fx.reg.Snapshot().Agent("a"); a.File != "x/a2.md" {
		t.Fatalf("agent a served from %q", a.File)
	}
	if err := fx.f.Delete("x/a2.md", "wrong"); !errors.Is(err, registry.ErrConflict) {
		t.Fatalf("delete with a wrong hash: %v", err)
	}
	if err := fx.f.Delete("x/a2.md", hash); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, ok := fx.reg.Snapshot().Agent("a"); ok {
		t.Fatal("deleted agent still served")
	}
	if err := fx.f.Delete("x/a2.md", hash); !errors.Is(err, registry.ErrConflict) {
		t.Fatalf("delete a missing file: %v", err)
	}
}

func TestRenameAndDeleteRefuseAnEmptyHash(t *testing.T) {
	fx := open(t, 0, map[string]string{"a.md": agentText("a", "A")})
	if err := fx.f.Delete("a.md", ""); !errors.Is(err, registry.ErrConflict) {
		t.Errorf("delete without a hash: %v", err)
	}
	if err := fx.f.Rename("a.md", "b.md", ""); !errors.Is(err, registry.ErrConflict) {
		t.Errorf("rename without a hash: %v", err)
	}
	if _, err := os.Stat(filepath.Join(fx.dir, "a.md")); err != nil {
		t.Fatalf("a.md is gone: %v", err)
	}
}

func TestSyncReadsTheFolderNow(t *testing.T) {
	fx := open(t, time.Hour, nil) // the watcher would wait an hour
	writeFile(t, fx.dir, "a.md", agentText("a", "A"))
	if err := fx.f.Sync(); err != nil {
		t.Fatal(err)
	}
	if description(fx.reg.Snapshot(), "a") != "A" {
		t.Fatal("Sync did not load the new file")
	}
}

// moveDir renames a folder, failing the test on error.
func moveDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

// saveAtomic writes text the way editors do: a temp file beside the target,
// then a rename over it.
func saveAtomic(t *testing.T, dir, rel, text string) {
	t.Helper()
	writeFile(t, dir, rel+".tmp", text)
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.Rename(p+".tmp", p); err != nil {
		t.Fatal(err)
	}
}

// servedFrom reports whether every named agent is served from the file
// given for it.
func servedFrom(s *registry.Snapshot, files map[string]string) bool {
	for name, file := range files {
		if a, ok := s.Agent(name); !ok || a.File != file {
			return false
		}
	}
	return true
}

func TestWatcherFollowsARenamedSubfolder(t *testing.T) {
	fx := open(t, 0, map[string]string{
		"team/a.md":     agentText("a", "a1"),
		"team/sub/b.md": agentText("b", "b1"),
	})

	moveDir(t, filepath.Join(fx.dir, "team"), filepath.Join(fx.dir, "team2"))
	fx.waitFor(t, "the agents under their new paths", func(s *registry.Snapshot) bool {
		return len(s.Files()) == 2 && servedFrom(s, map[string]string{"a": "team2/a.md", "b": "team2/sub/b.md"})
	})

	// Inside the renamed folder and its subfolder: an edit, an atomic save
	// and a delete are all seen, under the new paths.
	writeFile(t, fx.dir, "team2/a.md", agentText("a", "a2"))
	fx.waitFor(t, "an edit in the renamed folder", func(s *registry.Snapshot) bool { return description(s, "a") == "a2" })
	saveAtomic(t, fx.dir, "team2/sub/b.md", agentText("b", "b2"))
	fx.waitFor(t, "an atomic save in the renamed folder's subfolder", func(s *registry.Snapshot) bool {
		return description(s, "b") == "b2" && servedFrom(s, map[string]string{"b": "team2/sub/b.md"})
	})
	if err := os.Remove(filepath.Join(fx.dir, "team2", "a.md")); err != nil {
		t.Fatal(err)
	}
	fx.waitFor(t, "a delete in the renamed folder", func(s *registry.Snapshot) bool { _, ok := s.Agent("a"); return !ok })

	// Away out of the agents folder: its agents disappear.
	outside := filepath.Join(t.TempDir(), "parked")
	moveDir(t, filepath.Join(fx.dir, "team2"), outside)
	fx.waitFor(t, "the folder moved out", func(s *registry.Snapshot) bool { return len(s.Files()) == 0 })

	// Back in under another name: its agents return and edits are seen.
	writeFile(t, outside, "sub/c.md", agentText("c", "c1")) // written while away
	moveDir(t, outside, filepath.Join(fx.dir, "team3"))
	fx.waitFor(t, "the folder moved back in", func(s *registry.Snapshot) bool {
		return len(s.Files()) == 2 && servedFrom(s, map[string]string{"b": "team3/sub/b.md", "c": "team3/sub/c.md"})
	})
	saveAtomic(t, fx.dir, "team3/sub/b.md", agentText("b", "b3"))
	fx.waitFor(t, "an atomic save after moving back in", func(s *registry.Snapshot) bool { return description(s, "b") == "b3" })
	writeFile(t, fx.dir, "team3/d.md", agentText("d", "d1"))
	fx.waitFor(t, "a new file after moving back in", func(s *registry.Snapshot) bool {
		return servedFrom(s, map[string]string{"d": "team3/d.md"})
	})
}

// A burst touching many files of one folder is read with one listing of
// the folder: deleted, changed and new files must all come out right.
func TestWatcherFollowsAMassChangeInOneFolder(t *testing.T) {
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("team/a%02d.md", i)] = agentText(fmt.Sprintf("a%02d", i), "old")
	}
	fx := open(t, 0, files)
	want := map[string]string{}
	for i := range 40 {
		name := fmt.Sprintf("a%02d", i)
		p := filepath.Join(fx.dir, "team", name+".md")
		switch {
		case i < 30:
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		case i < 35:
			writeFile(t, fx.dir, "team/"+name+".md", agentText(name, "new"))
			want[name] = "new"
		default:
			want[name] = "old"
		}
	}
	for i := range 5 {
		name := fmt.Sprintf("b%02d", i)
		writeFile(t, fx.dir, "team/"+name+".md", agentText(name, "created"))
		want[name] = "created"
	}
	fx.waitFor(t, "the mass change", func(s *registry.Snapshot) bool {
		if len(s.Agents()) != len(want) {
			return false
		}
		for name, desc := range want {
			if description(s, name) != desc {
				return false
			}
		}
		return true
	})
}
