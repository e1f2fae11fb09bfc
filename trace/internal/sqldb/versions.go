package sqldb

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/internal/storekit"
)

var _ trace.VersionStore = (*Tables)(nil)

const versionColumns = `kind, name, path, hash, time, source, summary, deleted`

// AddVersion records a version unless it is the newest of its name
// already; see trace.VersionStore. The check and the insert are one
// statement in a write transaction that takes the name's lock first (on
// PostgreSQL; SQLite's write transaction holds the database), so two
// processes that notice one change take turns and the second adds nothing.
func (t *Tables) AddVersion(ctx context.Context, v trace.Version) (bool, error) {
	if err := trace.CheckVersion(v); err != nil {
		return false, err
	}
	content := v.Content
	if content == nil {
		content = []byte{}
	}
	var added bool
	err := t.write(ctx, func(tx DB) error {
		if t.lock != "" {
			if _, err := tx.Exec(ctx, t.lock, "version "+v.Kind+" "+v.Name); err != nil {
				return err
			}
		}
		n, err := tx.Exec(ctx, `INSERT INTO versions (`+versionColumns+`, content)
SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?
WHERE NOT EXISTS (SELECT 1 FROM versions WHERE pk = (SELECT MAX(pk) FROM versions WHERE kind = ? AND name = ?) AND hash = ? AND deleted = ?)`,
			v.Kind, v.Name, v.Path, v.Hash, ToNS(v.Time), v.Source, v.Summary, v.Deleted, content,
			v.Kind, v.Name, v.Hash, v.Deleted)
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
func (t *Tables) LatestVersion(ctx context.Context, kind, name string) (trace.Version, error) {
	v, err := scanVersion(t.read.QueryRow(ctx, `SELECT `+versionColumns+`, content FROM versions
WHERE kind = ? AND name = ? ORDER BY pk DESC LIMIT 1`, kind, name), true)
	if errors.Is(err, ErrNoRows) {
		return trace.Version{}, fmt.Errorf("%s %q has no versions: %w", kind, name, trace.ErrNotFound)
	}
	return v, err
}

// LatestVersions returns the newest version of every name of kind; see
// trace.VersionStore.
func (t *Tables) LatestVersions(ctx context.Context, kind string) (map[string]trace.Version, error) {
	list, err := t.versions(ctx, `SELECT `+versionColumns+` FROM versions
WHERE pk IN (SELECT MAX(pk) FROM versions WHERE kind = ? GROUP BY name)`, kind)
	out := make(map[string]trace.Version, len(list))
	for _, v := range list {
		out[v.Name] = v
	}
	return out, err
}

// Versions lists the versions of (kind, name) newest first; see
// trace.VersionStore.
func (t *Tables) Versions(ctx context.Context, kind, name string) ([]trace.Version, error) {
	return t.versions(ctx, `SELECT `+versionColumns+` FROM versions
WHERE kind = ? AND name = ? ORDER BY pk DESC`, kind, name)
}

func (t *Tables) versions(ctx context.Context, query string, args ...any) ([]trace.Version, error) {
	rows, err := t.read.Query(ctx, query, args...)
	var out []trace.Version
	err = each(rows, err, func(rows Rows) error {
		v, err := scanVersion(rows, false)
		out = append(out, v)
		return err
	})
	return out, err
}

// Version finds a version by its hash or a prefix of it; see
// trace.VersionStore. The prefix is checked to be hexadecimal before it
// reaches the query.
func (t *Tables) Version(ctx context.Context, kind, name, hash string) (trace.Version, error) {
	if err := trace.CheckHashPrefix(hash); err != nil {
		return trace.Version{}, err
	}
	var n int
	err := t.read.QueryRow(ctx, `SELECT COUNT(DISTINCT hash) FROM versions
WHERE kind = ? AND name = ? AND NOT deleted AND substr(hash, 1, ?) = ?`, kind, name, len(hash), hash).Scan(&n)
	switch {
	case err != nil:
		return trace.Version{}, err
	case n == 0:
		return trace.Version{}, fmt.Errorf("version %s of %s %q: %w", hash, kind, name, trace.ErrNotFound)
	case n > 1:
		return trace.Version{}, fmt.Errorf("version %s of %s %q: %w", hash, kind, name, trace.ErrAmbiguous)
	}
	return scanVersion(t.read.QueryRow(ctx, `SELECT `+versionColumns+`, content FROM versions
WHERE kind = ? AND name = ? AND NOT deleted AND substr(hash, 1, ?) = ? ORDER BY pk DESC LIMIT 1`, kind, name, len(hash), hash), true)
}

// VersionUses lists the runs that ran the file of kind named name, once
// per version each ran; see trace.VersionStore. It reads the attribute
// trace.VersionSpans names (an invoke_agent span's agent_version, an
// invoke_workflow span's workflow_version), so a run records nothing more
// for it.
func (t *Tables) VersionUses(ctx context.Context, kind, name string, limit int) ([]trace.VersionUse, error) {
	by, ok := trace.VersionSpans[kind]
	if !ok {
		return nil, nil
	}
	named := "agent"
	if by.NameAttr != "" {
		named = t.d.attribute("attributes", by.NameAttr)
	}
	rows, err := t.read.Query(ctx, `SELECT k.id, u.hash, r.started_at, r.status FROM (
    SELECT DISTINCT run_key, COALESCE(`+t.d.attribute("attributes", by.VersionAttr)+`, '') AS hash
    FROM spans WHERE kind = ? AND `+named+` = ?) u
JOIN run_keys k ON k.pk = u.run_key
JOIN runs r ON r.id = k.id
ORDER BY r.started_at DESC, k.id DESC, u.hash DESC LIMIT ?`, string(by.Span), name, storekit.PageLimit(limit))
	var out []trace.VersionUse
	err = each(rows, err, func(rows Rows) error {
		var u trace.VersionUse
		var started *int64
		var status string
		err := rows.Scan(&u.RunID, &u.Hash, &started, &status)
		u.StartedAt, u.Status = FromNS(started), trace.Status(status)
		out = append(out, u)
		return err
	})
	return out, err
}

func scanVersion(row Row, withContent bool) (trace.Version, error) {
	var v trace.Version
	var at *int64
	dest := []any{&v.Kind, &v.Name, &v.Path, &v.Hash, &at, &v.Source, &v.Summary, &v.Deleted}
	if withContent {
		dest = append(dest, &v.Content)
	}
	if err := row.Scan(dest...); err != nil {
		return trace.Version{}, err
	}
	v.Time = FromNS(at)
	if v.Deleted {
		v.Content = nil
	}
	return v, nil
}
