package sqldb

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestMigrationsAreTheHistoryThenTheSharedStepsRenderedForTheDialect(t *testing.T) {
	history := fstest.MapFS{
		"002_more.sql":   {Data: []byte("-- two\n")},
		"001_schema.sql": {Data: []byte("-- one {{.ID}} stays as written\n")},
		"README.md":      {Data: []byte("not a step")},
	}
	common := fstest.MapFS{
		"migrations/002_flag.sql":     {Data: []byte("ALTER TABLE t {{.AddColumn}} flag {{.Bool}};\n")},
		"migrations/001_versions.sql": {Data: []byte("CREATE TABLE IF NOT EXISTS v (id {{.ID}}, at {{.BigInt}}){{if .Postgres}} -- pg{{end}};\n")},
		"migrations/003_sqlite.sql":   {Data: []byte("{{if .SQLite}}CREATE INDEX IF NOT EXISTS v_at ON v (at);{{end}}\n")},
	}
	cases := []struct {
		name string
		d    Dialect
		want []string
	}{
		{"sqlite", SQLite, []string{"-- one {{.ID}} stays as written\n", "-- two\n",
			"CREATE TABLE IF NOT EXISTS v (id TEXT, at INTEGER);\n", "ALTER TABLE t ADD COLUMN flag INTEGER;\n",
			"CREATE INDEX IF NOT EXISTS v_at ON v (at);\n"}},
		{"postgres", Postgres, []string{"-- one {{.ID}} stays as written\n", "-- two\n",
			"CREATE TABLE IF NOT EXISTS v (id TEXT COLLATE \"C\", at BIGINT) -- pg;\n",
			"ALTER TABLE t ADD COLUMN IF NOT EXISTS flag BOOLEAN;\n", "\n"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := MigrationsWith(history, common, "migrations", c.d)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("scripts =\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

func TestABrokenSharedStepSaysWhichAndWhy(t *testing.T) {
	for _, text := range []string{"CREATE TABLE v (id {{.Id}});", "{{if .SQLite}}"} {
		common := fstest.MapFS{"migrations/001_bad.sql": {Data: []byte(text)}}
		_, err := MigrationsWith(fstest.MapFS{}, common, "migrations", SQLite)
		if err == nil || !strings.Contains(err.Error(), "001_bad.sql") {
			t.Errorf("%q: err = %v, want one naming the step", text, err)
		}
	}
}

func TestTheSharedListRendersForBothDialects(t *testing.T) {
	for _, d := range []Dialect{SQLite, Postgres} {
		if _, err := Migrations(fstest.MapFS{}, d); err != nil {
			t.Errorf("Migrations: %v", err)
		}
	}
}

func TestNumberedPlaceholders(t *testing.T) {
	cases := []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"SELECT a FROM t WHERE id = ? AND b IN (?, ?)", "SELECT a FROM t WHERE id = $1 AND b IN ($2, $3)"},
		{"SELECT '?', \"a?\" FROM t WHERE x = ?", "SELECT '?', \"a?\" FROM t WHERE x = $1"},
		{"SELECT 'it''s ?' WHERE x = ?", "SELECT 'it''s ?' WHERE x = $1"},
	}
	for _, c := range cases {
		if got := Numbered(c.in); got != c.want {
			t.Errorf("Numbered(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCleanMakesTextPostgreSQLCanStore(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain", "plain"}, {"a\x00b", "a\uFFFDb"}, {"bad \xff utf-8", "bad \uFFFD utf-8"},
	}
	for _, c := range cases {
		if got := Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
		if SQLite.clean(c.in) != c.in || Postgres.clean(c.in) != c.want {
			t.Errorf("dialect clean of %q differs", c.in)
		}
	}
}
