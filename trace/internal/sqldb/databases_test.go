package sqldb_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agentry/agentry/trace/internal/sqldb"
	"github.com/agentry/agentry/trace/postgres"
	"github.com/agentry/agentry/trace/postgres/pgtest"
	"github.com/agentry/agentry/trace/sqlite"
)

// exampleQueries are written once, with ? placeholders, as the shared
// queries are; the PostgreSQL side numbers them.
const (
	exampleInsert = "INSERT INTO example_versions (agent, version, body, saved_at, current, score) VALUES (?, ?, ?, ?, ?, ?)"
	exampleSelect = "SELECT agent, version, body, saved_at, current, score, note FROM example_versions WHERE agent = ? ORDER BY version"
)

type exampleRow struct {
	agent   string
	version int
	body    string
	savedAt int64
	current bool
	score   *float64
	note    *string
}

func render(t *testing.T, d sqldb.Dialect) string {
	t.Helper()
	history := os.DirFS(t.TempDir())
	scripts, err := sqldb.MigrationsWith(history, os.DirFS("testdata"), ".", d)
	if err != nil || len(scripts) != 1 {
		t.Fatalf("render the example: %d scripts, %v", len(scripts), err)
	}
	return scripts[0]
}

// A shared migration is written once and runs on both databases, after
// their own history, with the types each gives its columns: rows written
// with one query text read back the same from both.
func TestASharedMigrationRunsOnBothDatabases(t *testing.T) {
	score := 0.5
	want := []exampleRow{{"coder", 1, "v1", 1_700_000_000_123_456_789, false, nil, nil}, {"coder", 2, "v2", 1_700_000_000_999_000_001, true, &score, nil}}
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "traces.db")
		s, err := sqlite.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(render(t, sqldb.SQLite)); err != nil {
			t.Fatalf("the example on SQLite: %v", err)
		}
		if _, err := db.Exec("\n"); err != nil { // a step that concerns PostgreSQL only
			t.Fatalf("an empty step on SQLite: %v", err)
		}
		for _, r := range want {
			if _, err := db.Exec(exampleInsert, r.agent, r.version, r.body, r.savedAt, r.current, r.score); err != nil {
				t.Fatal(err)
			}
		}
		_, err = db.Exec(exampleInsert, "coder", 1, "again", 0, false, nil)
		if err == nil {
			t.Error("a second version 1 was stored; want the unique constraint to refuse it")
		}
		rows, err := db.Query(exampleSelect, "coder")
		checkRows(t, rows, err, want)
	})
	t.Run("postgres", func(t *testing.T) {
		url := pgtest.URL(t)
		s, err := postgres.Open(url) // creates the schema, at the store's version
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		script := render(t, sqldb.Postgres)
		if _, err := conn.Exec(ctx, "\n"); err != nil { // a step that concerns SQLite only
			t.Fatalf("an empty step on PostgreSQL: %v", err)
		}
		for range 2 { // PostgreSQL's tests wind versions back and run steps again
			if _, err := conn.Exec(ctx, script); err != nil {
				t.Fatalf("the example on PostgreSQL: %v", err)
			}
		}
		for _, r := range want {
			if _, err := conn.Exec(ctx, sqldb.Numbered(exampleInsert), r.agent, r.version, r.body, r.savedAt, r.current, r.score); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := conn.Exec(ctx, sqldb.Numbered(exampleInsert), "coder", 1, "again", 0, false, nil); err == nil {
			t.Error("a second version 1 was stored; want the unique constraint to refuse it")
		}
		rows, err := conn.Query(ctx, sqldb.Numbered(exampleSelect), "coder")
		checkRows(t, rows, err, want)
	})
}

type rowsLike interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

func checkRows(t *testing.T, rows rowsLike, err error, want []exampleRow) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var got []exampleRow
	for rows.Next() {
		var r exampleRow
		if err := rows.Scan(&r.agent, &r.version, &r.body, &r.savedAt, &r.current, &r.score, &r.note); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("read %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.agent != w.agent || g.version != w.version || g.body != w.body || g.savedAt != w.savedAt || g.current != w.current ||
			(g.score == nil) != (w.score == nil) || (g.score != nil && *g.score != *w.score) || g.note != nil {
			t.Errorf("row %d = %+v, want %+v", i, g, w)
		}
	}
}
