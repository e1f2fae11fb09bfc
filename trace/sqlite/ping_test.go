package sqlite_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentry/agentry/trace/sqlite"
)

func TestPingFailsOnceTheFileIsNoLongerTheDatabase(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(path string) error
	}{
		{"overwritten with other bytes", func(p string) error {
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteAt([]byte("this is no database"), 0)
			return err
		}},
		{"deleted", os.Remove},
		{"replaced by another file", func(p string) error {
			if err := os.Rename(p, p+".old"); err != nil {
				return err
			}
			return os.WriteFile(p, nil, 0o644)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.db")
			s, err := sqlite.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.Ping(t.Context()); err != nil {
				t.Fatalf("Ping on a fresh database: %v", err)
			}
			if err := tc.spoil(path); err != nil {
				t.Fatal(err)
			}
			err = s.Ping(t.Context())
			if err == nil {
				t.Fatal("Ping = nil after the file was spoilt")
			}
			if tc.name == "overwritten with other bytes" && !errors.Is(err, sqlite.ErrNotDatabase) {
				t.Errorf("Ping = %v, want ErrNotDatabase", err)
			}
		})
	}
}
