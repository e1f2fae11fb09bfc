package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"modernc.org/sqlite"

	"github.com/agentry/agentry/trace/internal/sqldb"
)

// tables are the queries this store shares with trace/postgres
// (trace/internal/sqldb): runs read and listed, rollups, approvals and
// conversations. Embedded, its methods are the Store's.
type tables = sqldb.Tables

// newTables plugs the read pool and the retried write transactions into
// the shared queries.
func (s *Store) newTables() *sqldb.Tables {
	return sqldb.New(sqldb.Config{
		Dialect: sqldb.SQLite,
		Read:    sqlDB{s.read},
		Write: func(ctx context.Context, fn func(sqldb.DB) error) error {
			return s.inTx(ctx, func(tx *sql.Tx) error { return fn(sqlDB{tx}) })
		},
		Durable:  "owner_pid = 0",
		Contains: func(column string) string { return foldContainsFunc + "(" + column + ", ?)" },
	})
}

// sqlDB adapts a pool or a transaction of database/sql to sqldb.DB.
type sqlDB struct {
	q interface {
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
		QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	}
}

func (d sqlDB) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := d.q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, driverError(err)
	}
	return res.RowsAffected()
}

func (d sqlDB) Query(ctx context.Context, query string, args ...any) (sqldb.Rows, error) {
	rows, err := d.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, driverError(err)
	}
	return sqlRows{rows}, nil
}

func (d sqlDB) QueryRow(ctx context.Context, query string, args ...any) sqldb.Row {
	return sqlRow{d.q.QueryRowContext(ctx, query, args...)}
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }

type sqlRow struct{ *sql.Row }

func (r sqlRow) Scan(dest ...any) error { return driverError(r.Row.Scan(dest...)) }

// driverError maps the driver's no-row and unique-key errors onto sqldb's.
func driverError(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return sqldb.ErrNoRows
	}
	var se *sqlite.Error
	if errors.As(err, &se) && (se.Code() == 1555 || se.Code() == 2067) { // SQLITE_CONSTRAINT_PRIMARYKEY, _UNIQUE
		return fmt.Errorf("%w: %w", sqldb.ErrUnique, err)
	}
	return err
}
