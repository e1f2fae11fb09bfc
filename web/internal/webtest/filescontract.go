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

// RunFilesContract runs the contract of agents.Files against an
// implementation; open returns a fresh store holding initial. The real
// folder (registry/folder) and the tests' MemFolder both pass it, so a
// handler test over the fake proves what the real folder would do.
func RunFilesContract(t *testing.T, open func(t *testing.T, initial map[string]string) FilesUnderTest) {
	contractWrites(t, open)
	contractPaths(t, open)
	contractRenames(t, open)
	contractDeletes(t, open)
}

// openFiles returns a fresh implementation under test holding initial.
type openFiles = func(t *testing.T, initial map[string]string) FilesUnderTest

// The files the contract writes, fileA's hash, and a hash that none of
// them has.
const (
	fileA = "---\nname: a\ndescription: A.\n---\nA.\n"
	fileB = "---\nname: b\ndescription: B.\n---\nB.\n"
)

var (
	hashA = registry.Hash([]byte(fileA))
	stale = registry.Hash([]byte("something else"))
)

// contractWrites: Write creates, replaces only the version read, and
// refuses a stale or missing one.
func contractWrites(t *testing.T, open openFiles) {
	t.Run("Write creates a new file with an empty hash and returns its hash", func(t *testing.T) {
		u := open(t, nil)
		h, err := u.Files.Write("a.md", []byte(fileA), "")
		mustNot(t, err)
		if h != hashA {
			t.Errorf("hash %q, want registry.Hash of the data", h)
		}
		wantDisk(t, u, "a.md", fileA)
		wantRegistry(t, u, "a.md", hashA)
	})
	t.Run("Write with an empty hash over an existing file is ErrExists", func(t *testing.T) {
		u := open(t, map[string]string{"a.md": fileA})
		_, err := u.Files.Write("a.md", []byte(fileB), "")
		wantErr(t, err, registry.ErrExists)
		wantDisk(t, u, "a.md", fileA)
	})
	t.Run("Write with the hash read replaces the file", func(t *testing.T) {
		u := open(t, map[string]string{"a.md": fileA})
		h, err := u.Files.Write("a.md", []byte(fileB), hashA)
		mustNot(t, err)
		wantDisk(t, u, "a.md", fileB)
		wantRegistry(t, u, "a.md", h)
	})
	t.Run("Write with a stale hash is ErrConflict and changes nothing", func(t *testing.T) {
		u := open(t, map[string]string{"a.md": fileA})
		_, err := u.Files.Write("a.md", []byte(fileB), stale)
		wantErr(t, err, registry.ErrConflict)
		wantDisk(t, u, "a.md", fileA)
	})
	t.Run("Write to a file deleted since it was read is ErrConflict", func(t *testing.T) {
		u := open(t, nil)
		_, err := u.Files.Write("a.md", []byte(fileB), hashA)
		wantErr(t, err, registry.ErrConflict)
		if _, ok := u.Read("a.md"); ok {
			t.Error("the write created the file")
		}
	})
}

// contractPaths: every method refuses a path outside the folder or not a
// clean .md path.
func contractPaths(t *testing.T, open openFiles) {
	t.Run("Paths that are not clean .md paths inside the folder are ErrInvalidPath", func(t *testing.T) {
		u := open(t, nil)
		for _, p := range []string{"../x.md", "/abs.md", "x.txt", "a/../../x.md", `a\b.md`, "", "."} {
			_, err := u.Files.Write(p, []byte(fileA), "")
			wantErr(t, err, registry.ErrInvalidPath)
			wantErr(t, u.Files.Rename(p, "ok.md", hashA), registry.ErrInvalidPath)
			wantErr(t, u.Files.Delete(p, hashA), registry.ErrInvalidPath)
		}
	})
}

// contractRenames: Rename moves the version read, never onto another file.
func contractRenames(t *testing.T, open openFiles) {
	t.Run("Rename with the hash read moves the file", func(t *testing.T) {
		u := open(t, map[string]string{"a.md": fileA})
		mustNot(t, u.Files.Rename("a.md", "sub/c.md", hashA))
		wantDisk(t, u, "sub/c.md", fileA)
		if _, ok := u.Read("a.md"); ok {
			t.Error("the old file is still there")
		}
		wantRegistry(t, u, "sub/c.md", hashA)
		if _, ok := u.Agents.Snapshot().File("a.md"); ok {
			t.Error("the registry still holds the old path")
		}
	})
	t.Run("Rename onto an existing file is ErrExists", func(t *testing.T) {
		u := open(t, map[string]string{"a.md": fileA, "b.md": fileB})
		wantErr(t, u.Files.Rename("a.md", "b.md", hashA), registry.ErrExists)
		wantDisk(t, u, "a.md", fileA)
		wantDisk(t, u, "b.md", fileB)
	})
	t.Run("Rename with a stale hash is ErrConflict", func(t *testing.T) {
		u := open(t, map[string]string{"a.md": fileA})
		wantErr(t, u.Files.Rename("a.md", "c.md", stale), registry.ErrConflict)
		wantDisk(t, u, "a.md", fileA)
	})
}

// contractDeletes: Delete removes only the version read.
func contractDeletes(t *testing.T, open openFiles) {
	t.Run("Delete with the hash read removes the file", func(t *testing.T) {
		u := open(t, map[string]string{"a.md": fileA})
		mustNot(t, u.Files.Delete("a.md", hashA))
		if _, ok := u.Read("a.md"); ok {
			t.Error("the file is still there")
		}
		if _, ok := u.Agents.Snapshot().File("a.md"); ok {
			t.Error("the registry still holds the file")
		}
	})
	t.Run("Delete with a stale hash is ErrConflict and keeps the file", func(t *testing.T) {
		u := open(t, map[string]string{"a.md": fileA})
		wantErr(t, u.Files.Delete("a.md", stale), registry.ErrConflict)
		wantDisk(t, u, "a.md", fileA)
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
