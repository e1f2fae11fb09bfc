package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net/url"

	"github.com/agentry/agentry/trace/internal/sqldb"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// applicationID marks a database as agentry's ("agtr") in its header.
const applicationID = 0x61677472

// Sentinel errors of Open, for callers that explain or branch.
var (
	// ErrNewerSchema means the database was written by a newer agentry.
	ErrNewerSchema = errors.New("trace database was written by a newer version of agentry")
	// ErrNotDatabase means the file is not a readable SQLite database: not
	// SQLite at all, or corrupt.
	ErrNotDatabase = errors.New("not a readable SQLite database (corrupt or another kind of file)")
	// ErrForeign means the file is a SQLite database that agentry did not create.
	ErrForeign = errors.New("SQLite database that is not an agentry trace database")
)

// migrations returns the migration scripts in order, this store's history
// then the shared ones (sqldb.Migrations); version N is the state after
// the Nth.
func migrations() ([]string, error) { return sqldb.Migrations(migrationFiles, sqldb.SQLite) }

// migrate brings the schema up to date in one transaction, refusing newer and
// foreign databases.
func migrate(ctx context.Context, db *sql.DB) error {
	scripts, err := migrations()
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	version, err := checkSchema(ctx, tx, len(scripts))
	if err != nil || version == len(scripts) {
		return err
	}
	for i := version; i < len(scripts); i++ {
		if _, err := tx.ExecContext(ctx, scripts[i]); err != nil {
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
	}
	pragmas := fmt.Sprintf("PRAGMA user_version = %d; PRAGMA application_id = %d", len(scripts), applicationID)
	if _, err := tx.ExecContext(ctx, pragmas); err != nil {
		return err
	}
	return tx.Commit()
}

const checkSchemaSQL = `SELECT (SELECT user_version FROM pragma_user_version),
    (SELECT application_id FROM pragma_application_id), (SELECT count(*) FROM sqlite_schema)`

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// checkSchema returns the schema version of a database this build may use,
// or why it may not: written by a newer agentry, or by another program.
func checkSchema(ctx context.Context, q querier, known int) (int, error) {
	// One statement, so one snapshot: read separately, a migration that
	// another process commits in between shows tables without the
	// application id, and a database being created looked foreign.
	var version, appID, tables int
	if err := q.QueryRowContext(ctx, checkSchemaSQL).Scan(&version, &appID, &tables); err != nil {
		return 0, err
	}
	switch {
	case appID != applicationID && (appID != 0 || tables > 0):
		return 0, ErrForeign
	case version > known:
		return 0, fmt.Errorf("%w (schema version %d, this build knows up to %d)", ErrNewerSchema, version, known)
	}
	return version, nil
}

// probe checks a database before anything writes to it (switching to WAL
// rewrites the header), so a file Open refuses is left as it was.
func probe(ctx context.Context, path string, o Options) error {
	scripts, err := migrations()
	if err != nil {
		return err
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+fmt.Sprintf("?_pragma=busy_timeout(%d)&_pragma=query_only(1)", o.BusyTimeout.Milliseconds()))
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = checkSchema(ctx, db, len(scripts))
	return err
}
