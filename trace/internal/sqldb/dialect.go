package sqldb

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Dialect is what differs between the two databases as far as the shared
// queries and migrations see it. Queries are written once with ?
// placeholders; a migration is a text/template whose data is the Dialect.
type Dialect struct {
	SQLite, Postgres bool // for {{if .SQLite}} in a migration that differs

	// Column types, for migrations.
	ID      string // an ID or name that compares bytewise, as Go sorts strings
	Text    string
	Int     string // 32 bits
	BigInt  string // times in Unix nanoseconds, counters, token counts
	Bool    string
	Float   string
	AutoKey string // an integer primary key the database numbers

	// AddColumn starts a clause of ALTER TABLE that adds a column; on
	// PostgreSQL it may run again harmlessly (SQLite has no IF NOT EXISTS
	// there, and never runs a step twice).
	AddColumn string
	// ForUpdate ends a SELECT in a write transaction whose rows are then
	// written: PostgreSQL locks them, so a concurrent writer waits and
	// reads the new state; SQLite's write transaction holds the whole
	// database already.
	ForUpdate string
}

// The two dialects.
var (
	SQLite = Dialect{
		SQLite: true,
		ID:     "TEXT", Text: "TEXT", Int: "INTEGER", BigInt: "INTEGER", Bool: "INTEGER", Float: "REAL",
		AutoKey:   "INTEGER PRIMARY KEY",
		AddColumn: "ADD COLUMN",
	}
	Postgres = Dialect{
		Postgres: true,
		ID:       `TEXT COLLATE "C"`, Text: "TEXT", Int: "INTEGER", BigInt: "BIGINT", Bool: "BOOLEAN", Float: "DOUBLE PRECISION",
		AutoKey:   "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
		AddColumn: "ADD COLUMN IF NOT EXISTS",
		ForUpdate: " FOR UPDATE",
	}
)

// Numbered rewrites a query's ? placeholders as $1, $2, ..., PostgreSQL's.
// A ? inside a quoted string or identifier is left alone; shared queries
// use no operator spelled with ? (PostgreSQL's JSON operators).
func Numbered(q string) string {
	if strings.IndexByte(q, '?') < 0 {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	var quote byte
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Clean returns s as PostgreSQL's text type can hold it: it takes neither
// NUL nor invalid UTF-8, which SQLite keeps, so each becomes U+FFFD (as
// trace.EncodeAttributes does for invalid UTF-8) rather than failing the
// write.
func Clean(s string) string {
	if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// clean is Clean on PostgreSQL and s as it is on SQLite: what a text
// column will read back, for the values an approval's seal covers.
func (d Dialect) clean(s string) string {
	if d.Postgres {
		return Clean(s)
	}
	return s
}

// attribute is the SQL expression that reads key (a plain word) from a
// JSON object in column as text, NULL when it is missing.
func (d Dialect) attribute(column, key string) string {
	if d.Postgres {
		return column + "->>'" + key + "'"
	}
	return "json_extract(" + column + ", '$." + key + "')"
}
