package webtest

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
)

// Both agents.Files implementations run through one suite: the agents folder
// on disk that serve uses, and the MemFolder the handler tests use.
func TestFilesContract(t *testing.T) {
	t.Run("registry/folder", func(t *testing.T) {
		RunFilesContract(t, func(t *testing.T, initial map[string]string) FilesUnderTest {
			dir := t.TempDir()
			for p, s := range initial {
				if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			reg := registry.New(nil)
			f, err := folder.Open(dir, reg, registry.Options{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			read := func(p string) (string, bool) {
				b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
				return string(b), err == nil
			}
			return FilesUnderTest{Files: f, Agents: reg, Read: read}
		})
	})
	t.Run("MemFolder", func(t *testing.T) {
		RunFilesContract(t, func(t *testing.T, initial map[string]string) FilesUnderTest {
			m := NewMemFolder(initial)
			return FilesUnderTest{Files: m, Agents: m.Reg, Read: m.Disk}
		})
	})
}
