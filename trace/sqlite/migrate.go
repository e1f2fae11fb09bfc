package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
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

// migrations returns the embedded migration scripts in order; version N is
// the state after the Nth.
func migrations() ([]string, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := make([]string, len(names))
	for i, n := range names {
		b, err := migrationFiles.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out[i] = string(b)
	}
	return out, nil
}

// migrate brings the schema up to date in one transaction, refusing newer and
// foreign databases.
func migrate(ctx context.Context, db *sql.DB) error {
	scripts, err := migrations()
	if err != nil {
		return fmt.Errorf("read migrations: %w", err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var version, appID, tables int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	if err := tx.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return err
	}
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&tables); err != nil {
		return err
	}
	switch {
	case appID != applicationID && (appID != 0 || tables > 0):
		return ErrForeign
	case version > len(scripts):
		return fmt.Errorf("%w (schema version %d, this build knows up to %d)", ErrNewerSchema, version, len(scripts))
	case version == len(scripts):
		return nil
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
