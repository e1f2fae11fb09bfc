package sqlite_test

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/sqlite"
)

func TestOpenKeepsDataAcrossReopen(t *testing.T) {
	s, path := openTemp(t)
	r := trace.Run{ID: "r1", Agent: "a", Status: trace.StatusOK, StartedAt: tracetestBase}
	if err := s.Apply(t.Context(), []trace.Run{r}, nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, err := sqlite.Open(path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s2.Close()
	if _, err := s2.Run(t.Context(), "r1"); err != nil {
		t.Errorf("after reopen: %v", err)
	}
}

func TestOpenRefusesFilesItMustNotUse(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, path string)
		want  error
	}{
		{"a text file is not a database", func(t *testing.T, path string) {
			writeFile(t, path, []byte("name: not a database\n"+string(make([]byte, 4096))))
		}, sqlite.ErrNotDatabase},
		{"a database with a garbled schema page is corrupt", corruptSchemaPage, sqlite.ErrNotDatabase},
		{"a database written by a newer agentry is refused", func(t *testing.T, path string) {
			makeDB(t, path, "PRAGMA user_version = 99; PRAGMA application_id = 1634169970")
		}, sqlite.ErrNewerSchema},
		{"another program's database is refused", func(t *testing.T, path string) {
			makeDB(t, path, "CREATE TABLE customers (id INTEGER PRIMARY KEY)")
		}, sqlite.ErrForeign},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "traces.db")
			c.setup(t, path)
			before, _ := os.ReadFile(path)
			s, err := sqlite.Open(path)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("Open = %v, want %v", err, c.want)
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Error("Open modified a file it refused")
			}
			t.Logf("error shown: %v", err)
		})
	}
}

// makeDB creates a SQLite file with the given statements and no WAL left over.
func makeDB(t *testing.T, path, stmts string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(stmts); err != nil {
		t.Fatal(err)
	}
}

// corruptSchemaPage builds a real trace database and overwrites the middle
// of its first page, where the schema lives, with garbage.
func corruptSchemaPage(t *testing.T, path string) {
	t.Helper()
	s, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 100; i < 4096 && i < len(b); i++ {
		b[i] = byte(i*7 + 3)
	}
	writeFile(t, path, b)
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
