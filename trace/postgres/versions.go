package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/internal/sqldb"
	"github.com/agentry/agentry/trace/internal/storekit"
)

var _ trace.VersionStore = (*Store)(nil)

const versionColumns = `kind, name, path, hash, time, source, summary, deleted`

// AddVersion records a version unless it is the newest of its name
// already; see trace.VersionStore. A transaction advisory lock on the
// name makes two processes that notice one change take turns, so the
// second sees the first's row and adds nothing.
func (s *Store) AddVersion(ctx context.Context, v trace.Version) (bool, error) {
	if err := trace.CheckVersion(v); err != nil {
		return false, err
	}
	content := v.Content
	if content == nil {
		content = []byte{}
	}
	var added bool
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, $2))", "version "+v.Kind+" "+sqldb.Clean(v.Name), int64(s.owner.class)); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO versions (`+versionColumns+`, content)
SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9
WHERE NOT EXISTS (SELECT 1 FROM versions WHERE pk = (SELECT MAX(pk) FROM versions WHERE kind = $1 AND name = $2) AND hash = $4 AND deleted = $8)`,
			v.Kind, sqldb.Clean(v.Name), sqldb.Clean(v.Path), v.Hash, sqldb.ToNS(v.Time), v.Source, sqldb.Clean(v.Summary), v.Deleted, content)
		added = tag.RowsAffected() == 1
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
	v, err := scanVersion(s.pool.QueryRow(ctx, `SELECT `+versionColumns+`, content FROM versions
WHERE kind = $1 AND name = $2 ORDER BY pk DESC LIMIT 1`, kind, sqldb.Clean(name)), true)
	if errors.Is(err, pgx.ErrNoRows) {
		return trace.Version{}, fmt.Errorf("%s %q has no versions: %w", kind, name, trace.ErrNotFound)
	}
	return v, err
}

// LatestVersions returns the newest version of every name of kind; see
// trace.VersionStore.
func (s *Store) LatestVersions(ctx context.Context, kind string) (map[string]trace.Version, error) {
	list, err := s.versions(ctx, `SELECT DISTINCT ON (name) `+versionColumns+` FROM versions
WHERE kind = $1 ORDER BY name, pk DESC`, kind)
	out := make(map[string]trace.Version, len(list))
	for _, v := range list {
		out[v.Name] = v
	}
	return out, err
}

// Versions lists the versions of (kind, name) newest first; see
// trace.VersionStore.
func (s *Store) Versions(ctx context.Context, kind, name string) ([]trace.Version, error) {
	return s.versions(ctx, `SELECT `+versionColumns+` FROM versions WHERE kind = $1 AND name = $2 ORDER BY pk DESC`, kind, sqldb.Clean(name))
}

func (s *Store) versions(ctx context.Context, query string, args ...any) ([]trace.Version, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (trace.Version, error) { return scanVersion(row, false) })
}

// Version finds a version by its hash or a prefix of it; see
// trace.VersionStore.
func (s *Store) Version(ctx context.Context, kind, name, hash string) (trace.Version, error) {
	if err := trace.CheckHashPrefix(hash); err != nil {
		return trace.Version{}, err
	}
	var n int
	err := s.pool.QueryRow(ctx, `SELECT COUNT(DISTINCT hash) FROM versions
WHERE kind = $1 AND name = $2 AND NOT deleted AND left(hash, $3) = $4`, kind, sqldb.Clean(name), len(hash), hash).Scan(&n)
	switch {
	case err != nil:
		return trace.Version{}, err
	case n == 0:
		return trace.Version{}, fmt.Errorf("version %s of %s %q: %w", hash, kind, name, trace.ErrNotFound)
	case n > 1:
		return trace.Version{}, fmt.Errorf("version %s of %s %q: %w", hash, kind, name, trace.ErrAmbiguous)
	}
	return scanVersion(s.pool.QueryRow(ctx, `SELECT `+versionColumns+`, content FROM versions
WHERE kind = $1 AND name = $2 AND NOT deleted AND left(hash, $3) = $4 ORDER BY pk DESC LIMIT 1`, kind, sqldb.Clean(name), len(hash), hash), true)
}

// VersionUses lists the runs that invoked agent, once per version each
// ran; see trace.VersionStore. It reads the invoke_agent spans'
// agent_version attribute, so a run records nothing more for it.
func (s *Store) VersionUses(ctx context.Context, agent string, limit int) ([]trace.VersionUse, error) {
	rows, err := s.pool.Query(ctx, `SELECT k.id, u.hash, r.started_at, r.status FROM (
    SELECT DISTINCT run_key, COALESCE(attributes->>'agent_version', '') AS hash
    FROM spans WHERE kind = $1 AND agent = $2) u
JOIN run_keys k ON k.pk = u.run_key
JOIN runs r ON r.id = k.id
ORDER BY r.started_at DESC, k.id DESC, u.hash DESC LIMIT $3`, string(trace.KindInvokeAgent), sqldb.Clean(agent), storekit.PageLimit(limit))
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (trace.VersionUse, error) {
		var u trace.VersionUse
		var started *int64
		var status string
		err := row.Scan(&u.RunID, &u.Hash, &started, &status)
		u.StartedAt, u.Status = sqldb.FromNS(started), trace.Status(status)
		return u, err
	})
}

func scanVersion(row pgx.Row, withContent bool) (trace.Version, error) {
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
