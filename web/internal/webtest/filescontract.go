package webtest

import (
	"errors"
	"testing"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/web/agents"
)

// FilesUnderTest is one implementation of agents.Files as the contract suite
// drives it: the store, the registry it keeps current, and a way to read
// what is on its "disk".
type FilesUnderTest struct {
	Files  agents.Files
	Agents agents.Catalog
	Read   func(path string) (string, bool)
}

// RunFilesContract runs the contract of agents.Files (see agents.Files) against
// an implementation; open returns a fresh store holding initial. The real
// folder (registry/folder) and the tests' MemFolder both pass it, so a
// handler test over the fake proves what the real folder would do.
func RunFilesContract(t *testing.T, open func(t *testing.T, initial map[string]string) FilesUnderTest) {
	const a = "---\nname: a\ndescription: A.\n---\nA.\n"
	const b = "---\nname: b\ndescription: B.\n---\nB.\n"
	hashA := registry.Hash([]byte(a))
	stale := registry.Hash([]byte("something else"))

	t.Run("Write creates a new file with an empty hash and returns its hash", func(t *testing.T) {
		u := open(t, nil)
		h, err := u.Files.Write("a.md", []byte(a), "")
		mustNot(t, err)
		if h != hashA {
			t.Errorf("hash %q, want registry.Hash of the data", h)
		}
		wantDisk(t, u, "a.md", a)
		wantRegistry(t, u, "a.md", hashA)
	})
	t.Run("Write with an empty hash over an existing file is ErrExists", func(t *testing.T) {
		u := open(t, map[string]string{"a.md": a})
		_, err := u.Files.Write("a.md", []byte(b), "")
		wantErr(t, err, registry.ErrExists)
		wantDisk(t, u, "a.md", a)
	})
	t.Run("Write with the hash read replaces the file", func(t *testing.T) {
		u := open(t, map[string]string{"a.md": a})
		h, err := u.Files.Write("a.md", []byte(b), hashA)
		mustNot(t, err)
		wantDisk(t, u, "a.md", b)
		wantRegistry(t, u, "a.md", h)
	})
	t.Run("Write with a stale hash is ErrConflict and changes nothing", func(t *testing.T) {
		u := open(t, map[string]string{"a.md": a})
		_, err := u.Files.Write("a.md", []byte(b), stale)
		wantErr(t, err, registry.ErrConflict)
		wantDisk(t, u, "a.md", a)
	})
	t.Run("Write to a file deleted since it was read is ErrConflict", func(t *testing.T) {
		u := open(t, nil)
		_, err := u.Files.Write("a.md", []byte(b), hashA)
		wantErr(t, err, registry.ErrConflict)
		if _, ok := u.Read("a.md"); ok {
			t.Error("the write created the file")
		}
	})
	t.Run("Paths that are not clean .md paths inside the folder are ErrInvalidPath", func(t *testing.T) {
		u := open(t, nil)
		for _, p := range []string{"../x.md", "/abs.md", "x.txt", "a/../../x.md", `a\b.md`, "", "."} {
			_, err := u.Files.Write(p, []byte(a), "")
			wantErr(t, err, registry.ErrInvalidPath)
			wantErr(t, u.Files.Rename(p, "ok.md", hashA), registry.ErrInvalidPath)
			wantErr(t, u.Files.Delete(p, hashA), registry.ErrInvalidPath)
		}
	})
	t.Run("Rename with the hash read moves the file", func(t *testing.T) {
		u := open(t, map[string]string{"a.md": a})
		mustNot(t, u.Files.Rename("a.md", "sub/c.md", hashA))
		wantDisk(t, u, "sub/c.md", a)
		if _, ok := u.Read("a.md"); ok {
			t.Error("the old file is still there")
		}
		wantRegistry(t, u, "sub/c.md", hashA)
		if _, ok := u.Agents.Snapshot().File("a.md"); ok {
			t.Error("the registry still holds the old path")
		}
	})
	t.Run("Rename onto an existing file is ErrExists", func(t *testing.T) {
		u := open(t, map[string]string{"a.md": a, "b.md": b})
		wantErr(t, u.Files.Rename("a.md", "b.md", hashA), registry.ErrExists)
		wantDisk(t, u, "a.md", a)
		wantDisk(t, u, "b.md", b)
	})
	t.Run("Rename with a stale hash is ErrConflict", func(t *testing.T) {
		u := open(t, map[string]string{"a.md": a})
		wantErr(t, u.Files.Rename("a.md", "c.md", stale), registry.ErrConflict)
		wantDisk(t, u, "a.md", a)
	})
	t.Run("Delete with the hash read removes the file", func(t *testing.T) {
		u := open(t, map[string]string{"a.md": a})
		mustNot(t, u.Files.Delete("a.md", hashA))
		if _, ok := u.Read("a.md"); ok {
			t.Error("the file is still there")
		}
		if _, ok := u.Agents.Snapshot().File("a.md"); ok {
			t.Error("the registry still holds the file")
		}
	})
	t.Run("Delete with a stale hash is ErrConflict and keeps the file", func(t *testing.T) {
		u := open(t, map[string]string{"a.md": a})
		wantErr(t, u.Files.Delete("a.md", stale), registry.ErrConflict)
		wantDisk(t, u, "a.md", a)
	})
	t.Run("Delete of a file already gone is ErrConflict", func(t *testing.T) {
		u := open(t, nil)
		wantErr(t, u.Files.Delete("a.md", hashA), registry.ErrConflict)
	})
}

func mustNot(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantErr(t *testing.T, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("err = %v, want %v", err, want)
	}
}

func wantDisk(t *testing.T, u FilesUnderTest, path, want string) {
	t.Helper()
	if got, ok := u.Read(path); !ok || got != want {
		t.Errorf("%s holds %q (exists %v), want %q", path, got, ok, want)
	}
}

func wantRegistry(t *testing.T, u FilesUnderTest, path, hash string) {
	t.Helper()
	if f, ok := u.Agents.Snapshot().File(path); !ok || f.Hash != hash {
		t.Errorf("the registry holds %s with hash %q (exists %v), want %q", path, f.Hash, ok, hash)
	}
}
