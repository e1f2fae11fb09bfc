package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agentry/agentry/trace/internal/sqldb"
)

// tables are the queries this store shares with trace/sqlite
// (trace/internal/sqldb): runs read and listed, rollups, approvals and
// conversations. Embedded, its methods are the Store's.
type tables = sqldb.Tables

// newTables plugs the pool into the shared queries. A conversation's
// follow-ups take the next numbers under a transaction advisory lock on
// the conversation (single 64-bit key space, apart from the owner locks'
// pairs), since two serve instances may append at once where SQLite's
// single writer serializes them.
func (s *Store) newTables(class int32) *sqldb.Tables {
	return sqldb.New(sqldb.Config{
		Dialect: sqldb.Postgres,
		Read:    pgDB{s.pool},
		Write: func(ctx context.Context, fn func(sqldb.DB) error) error {
			return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return fn(pgDB{tx}) })
		},
		Durable: "owner_key = 0",
		// strpos, not LIKE: the text is matched as written, % and _ included.
		Contains: func(column string) string { return "strpos(" + fmt.Sprintf(s.fold, column) + ", ?) > 0" },
		Lock:     fmt.Sprintf("SELECT pg_advisory_xact_lock(hashtextextended(?, %d))", int64(class)),
	})
}

// pgDB adapts a pool or a transaction of pgx to sqldb.DB: placeholders
// numbered, text arguments made storable (sqldb.Clean), and pgx's no-row
// and unique-violation errors mapped onto sqldb's.
type pgDB struct {
	q interface {
		Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
		Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
		QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	}
}

func (d pgDB) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := d.q.Exec(ctx, sqldb.Numbered(query), cleanArgs(args)...)
	if err != nil {
		return 0, driverError(err)
	}
	return tag.RowsAffected(), nil
}

func (d pgDB) Query(ctx context.Context, query string, args ...any) (sqldb.Rows, error) {
	rows, err := d.q.Query(ctx, sqldb.Numbered(query), cleanArgs(args)...)
	if err != nil {
		return nil, driverError(err)
	}
	return rows, nil
}

func (d pgDB) QueryRow(ctx context.Context, query string, args ...any) sqldb.Row {
	return pgRow{d.q.QueryRow(ctx, sqldb.Numbered(query), cleanArgs(args)...)}
}

type pgRow struct{ pgx.Row }

func (r pgRow) Scan(dest ...any) error { return driverError(r.Row.Scan(dest...)) }

// cleanArgs makes every text argument one PostgreSQL can store.
func cleanArgs(args []any) []any {
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = sqldb.Clean(s)
		}
	}
	return args
}

// driverError maps pgx's no-row and unique-violation errors onto sqldb's.
func driverError(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return sqldb.ErrNoRows
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" { // unique_violation
		return fmt.Errorf("%w: %w", sqldb.ErrUnique, err)
	}
	return err
}
