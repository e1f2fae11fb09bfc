package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/internal/sqldb"
	"github.com/agentry/agentry/trace/internal/storekit"
)

var _ trace.VersionStore = (*Store)(nil)

const versionColumns = `kind, name, path, hash, time, source, summary, deleted`

// AddVersion records a version unless it is the newest of its name
// already; see trace.VersionStore. The check and the insert are one
// statement, so two processes that notice one change record it once.
func (s *Store) AddVersion(ctx context.Context, v trace.Version) (bool, error) {
	if err := trace.CheckVersion(v); err != nil {
		return false, err
	}
	content := v.Content
	if content == nil {
		content = []byte{}
	}
	var added bool
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO versions (`+versionColumns+`, content)
SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?
WHERE NOT EXISTS (SELECT 1 FROM versions WHERE pk = (SELECT MAX(pk) FROM versions WHERE kind = ? AND name = ?) AND hash = ? AND deleted = ?)`,
			v.Kind, v.Name, v.Path, v.Hash, sqldb.ToNS(v.Time), v.Source, v.Summary, v.Deleted, content,
			v.Kind, v.Name, v.Hash, v.Deleted)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		added = n == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("add version of %s %s: %w", v.Kind, v.Name, err)
	}
	return added, nil
}

// LatestVersion returns the newest version of (kind, name); see
// trace.VersionStore.
func (s *Store) LatestVersion(ctx context.Context, kind, name string) (trace.Version, error) {
	v, err := scanVersion(s.read.QueryRowContext(ctx, `SELECT `+versionColumns+`, content FROM versions
WHERE kind = ? AND name = ? ORDER BY pk DESC LIMIT 1`, kind, name), true)
	if errors.Is(err, sql.ErrNoRows) {
		return trace.Version{}, fmt.Errorf("%s %q has no versions: %w", kind, name, trace.ErrNotFound)
	}
	return v, err
}

// LatestVersions returns the newest version of every name of kind; see
// trace.VersionStore.
func (s *Store) LatestVersions(ctx context.Context, kind string) (map[string]trace.Version, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+versionColumns+` FROM versions
WHERE pk IN (SELECT MAX(pk) FROM versions WHERE kind = ? GROUP BY name)`, kind)
	if err != nil {
		return nil, err
	}
	list, err := scanVersions(rows)
	out := make(map[string]trace.Version, len(list))
	for _, v := range list {
		out[v.Name] = v
	}
	return out, err
}

// Versions lists the versions of (kind, name) newest first; see
// trace.VersionStore.
func (s *Store) Versions(ctx context.Context, kind, name string) ([]trace.Version, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+versionColumns+` FROM versions
WHERE kind = ? AND name = ? ORDER BY pk DESC`, kind, name)
	if err != nil {
		return nil, err
	}
	return scanVersions(rows)
}

// Version finds a version by its hash or a prefix of it; see
// trace.VersionStore. The prefix is checked to be hexadecimal before it
// reaches the query.
func (s *Store) Version(ctx context.Context, kind, name, hash string) (trace.Version, error) {
	if err := trace.CheckHashPrefix(hash); err != nil {
		return trace.Version{}, err
	}
	var n int
	err := s.read.QueryRowContext(ctx, `SELECT COUNT(DISTINCT hash) FROM versions
WHERE kind = ? AND name = ? AND deleted = 0 AND substr(hash, 1, ?) = ?`, kind, name, len(hash), hash).Scan(&n)
	switch {
	case err != nil:
		return trace.Version{}, err
	case n == 0:
		return trace.Version{}, fmt.Errorf("version %s of %s %q: %w", hash, kind, name, trace.ErrNotFound)
	case n > 1:
		return trace.Version{}, fmt.Errorf("version %s of %s %q: %w", hash, kind, name, trace.ErrAmbiguous)
	}
	return scanVersion(s.read.QueryRowContext(ctx, `SELECT `+versionColumns+`, content FROM versions
WHERE kind = ? AND name = ? AND deleted = 0 AND substr(hash, 1, ?) = ? ORDER BY pk DESC LIMIT 1`, kind, name, len(hash), hash), true)
}

// VersionUses lists the runs that invoked agent, once per version each
// ran; see trace.VersionStore. It reads the invoke_agent spans'
// agent_version attribute, so a run records nothing more for it.
func (s *Store) VersionUses(ctx context.Context, agent string, limit int) ([]trace.VersionUse, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT k.id, u.hash, r.started_at, r.status FROM (
    SELECT DISTINCT run_key, COALESCE(json_extract(attributes, '$.agent_version'), '') AS hash
    FROM spans WHERE kind = ? AND agent = ?) u
JOIN run_keys k ON k.pk = u.run_key
JOIN runs r ON r.id = k.id
ORDER BY r.started_at DESC, k.id DESC, u.hash DESC LIMIT ?`, string(trace.KindInvokeAgent), agent, storekit.PageLimit(limit))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []trace.VersionUse
	for rows.Next() {
		var u trace.VersionUse
		var started *int64
		var status string
		if err := rows.Scan(&u.RunID, &u.Hash, &started, &status); err != nil {
			return nil, err
		}
		u.StartedAt, u.Status = sqldb.FromNS(started), trace.Status(status)
		out = append(out, u)
	}
	return out, rows.Err()
}

func scanVersion(row interface{ Scan(...any) error }, withContent bool) (trace.Version, error) {
	var v trace.Version
	var at *int64
	dest := []any{&v.Kind, &v.Name, &v.Path, &v.Hash, &at, &v.Source, &v.Summary, &v.Deleted}
	if withContent {
		dest = append(dest, &v.Content)
	}
	if err := row.Scan(dest...); err != nil {
		return trace.Version{}, err
	}
	v.Time = sqldb.FromNS(at)
	if v.Deleted {
		v.Content = nil
	}
	return v, nil
}

func scanVersions(rows *sql.Rows) ([]trace.Version, error) {
	defer rows.Close()
	var out []trace.Version
	for rows.Next() {
		v, err := scanVersion(rows, false)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
