// Package pgtest gives tests a PostgreSQL database to run against: a fresh
// schema per test in the database the PG* environment variables name
// (`make test` runs the tests inside pg_virtualenv, which sets them).
//
// Without a reachable server a test skips, saying why, so `go test ./...`
// works on a machine without PostgreSQL; with REQUIRE_POSTGRES=1 (set by
// `make test`) it fails instead, so CI cannot pass by skipping.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/url"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// URL returns a postgres:// URL, password included, whose search_path is a
// schema of its own that is dropped when the test ends. The schema does
// not exist yet: the store's Open creates it, as it would for a user.
func URL(t testing.TB) string {
	t.Helper()
	return schemaURL(t, connect(t))
}

// CLocaleDatabase creates a database whose ctype is C, where PostgreSQL's
// lower() folds ASCII only, and returns a function like URL for schemas in
// it. The database is dropped when t ends, so t's subtests may use it.
func CLocaleDatabase(t testing.TB) func(t testing.TB) string {
	t.Helper()
	cfg := connect(t)
	name := "agentry_test_c_" + randomHex(6)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+
		" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"); err != nil {
		t.Fatalf("create a C-locale database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if conn, err := pgx.ConnectConfig(ctx, cfg); err == nil {
			conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
			conn.Close(ctx)
		}
	})
	in := cfg.Copy()
	in.Database = name
	return func(t testing.TB) string { return schemaURL(t, in) }
}

func schemaURL(t testing.TB, cfg *pgx.ConnConfig) string {
	schema := "agentry_test_" + randomHex(6)
	t.Cleanup(func() { drop(cfg, schema) })
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(cfg.User, cfg.Password),
		Host:     net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))),
		Path:     "/" + cfg.Database,
		RawQuery: url.Values{"search_path": {schema}, "sslmode": {"disable"}}.Encode(),
	}
	return u.String()
}

// connect returns the configuration of the server the environment names,
// after checking it answers; it skips or fails the test when it does not.
func connect(t testing.TB) *pgx.ConnConfig {
	t.Helper()
	cfg, err := pgx.ParseConfig("")
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var conn *pgx.Conn
		if conn, err = pgx.ConnectConfig(ctx, cfg); err == nil {
			conn.Close(ctx)
			return cfg
		}
	}
	if os.Getenv("REQUIRE_POSTGRES") == "1" {
		t.Fatalf("REQUIRE_POSTGRES=1 but PostgreSQL is not reachable through the PG* environment: %v", err)
	}
	t.Skipf("no PostgreSQL (%v): set PGHOST, PGPORT, PGUSER, PGPASSWORD and PGDATABASE, or run `make test`, which starts one", err)
	return nil
}

func drop(cfg *pgx.ConnConfig, schema string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
