package sqldb

import (
	"context"
	"errors"
	"time"
)

// DB runs the shared queries on a connection pool or in a transaction.
// Each store adapts its driver to it (trace/sqlite's database/sql,
// trace/postgres's pgx): the adapter turns the ? placeholders into its
// database's (Numbered) and maps its driver's errors onto ErrNoRows and
// ErrUnique, so the shared code never names a driver.
type DB interface {
	// Exec runs a statement and returns how many rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	Query(ctx context.Context, query string, args ...any) (Rows, error)
	QueryRow(ctx context.Context, query string, args ...any) Row
}

// Rows are a query's rows, read with Next and Scan; Close them.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// Row is a query's one row; Scan returns ErrNoRows when there is none.
type Row interface {
	Scan(dest ...any) error
}

// Errors a DB maps its driver's onto.
var (
	ErrNoRows = errors.New("no rows")
	ErrUnique = errors.New("unique constraint violated")
)

// WriteFunc runs fn in a write transaction and commits it when fn returns
// nil. It may run fn more than once (trace/sqlite retries a transaction
// that other writers kept busy), so fn starts from scratch each time.
type WriteFunc func(ctx context.Context, fn func(tx DB) error) error

// each scans every row of a query with scan, in order.
func each(rows Rows, err error, scan func(Rows) error) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ToNS stores a time as Unix nanoseconds, the zero time as 0.
func ToNS(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// EndNS stores an end time, NULL (nil) while there is none.
func EndNS(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	n := t.UnixNano()
	return &n
}

// FromNS reads what ToNS and EndNS store, in UTC.
func FromNS(n *int64) time.Time {
	if n == nil || *n == 0 {
		return time.Time{}
	}
	return time.Unix(0, *n).UTC()
}
