package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentry/agentry/trace/internal/sqldb"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Sentinel errors of Open, for callers that explain or branch.
var (
	// ErrNewerSchema means the tables were written by a newer agentry.
	ErrNewerSchema = errors.New("trace database was written by a newer version of agentry")
	// ErrForeign means the schema holds a runs table that agentry did not create.
	ErrForeign = errors.New("PostgreSQL schema has a runs table that is not agentry's")
)

// migrations returns the migration scripts in order, this store's history
// then the shared ones (sqldb.Migrations); version N is the state after
// the Nth.
func migrations() ([]string, error) { return sqldb.Migrations(migrationFiles, sqldb.Postgres) }

// migrate brings the schema up to date in one transaction under a
// transaction advisory lock, so processes that open a new database at once
// queue behind the first instead of failing on each other's CREATE TABLE.
// The version lives in agentry_schema; a runs table without it is foreign.
// createSchema, if set, is the search_path's schema, created first.
func migrate(ctx context.Context, pool *pgxpool.Pool, lockClass int32, createSchema string) error {
	scripts, err := migrations()
	if err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// Key 0 of the schema's class; owner keys start at 1.
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1::integer, 0)", lockClass); err != nil {
			return fmt.Errorf("lock for migration: %w", err)
		}
		if createSchema != "" {
			if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{createSchema}.Sanitize()); err != nil {
				return fmt.Errorf("create schema %s: %w", createSchema, err)
			}
		}
		var versioned, runs bool
		err := tx.QueryRow(ctx, "SELECT to_regclass('agentry_schema') IS NOT NULL, to_regclass('runs') IS NOT NULL").Scan(&versioned, &runs)
		if err != nil {
			return err
		}
		version := 0
		switch {
		case versioned:
			if err := tx.QueryRow(ctx, "SELECT version FROM agentry_schema").Scan(&version); err != nil {
				return fmt.Errorf("read schema version: %w", err)
			}
		case runs:
			return ErrForeign
		default:
			if _, err := tx.Exec(ctx, "CREATE TABLE agentry_schema (version INTEGER NOT NULL); INSERT INTO agentry_schema VALUES (0)"); err != nil {
				return fmt.Errorf("create schema version table: %w", err)
			}
		}
		if version > len(scripts) {
			return fmt.Errorf("%w (schema version %d, this build knows up to %d)", ErrNewerSchema, version, len(scripts))
		}
		for i := version; i < len(scripts); i++ {
			if _, err := tx.Exec(ctx, scripts[i]); err != nil {
				return fmt.Errorf("migration %d: %w", i+1, err)
			}
		}
		_, err = tx.Exec(ctx, "UPDATE agentry_schema SET version = $1", len(scripts))
		return err
	})
}
