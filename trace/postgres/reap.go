package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// MarkInterrupted marks every run left running by a store whose session
// has ended as interrupted, with its open spans, at the last time the run
// recorded, and returns how many runs it marked; see trace.Store. A
// writer is alive while its session holds its owner lock, whichever host
// it runs on: trying that lock from here fails while it lives and
// succeeds once the session is gone.
func (s *Store) MarkInterrupted(ctx context.Context) (int, error) {
	rows, err := s.pool.Query(ctx, "SELECT id, owner_key, owner_host, owner_pid FROM runs WHERE status = 'running' ORDER BY owner_key")
	if err != nil {
		return 0, fmt.Errorf("find running runs: %w", err)
	}
	var o orphan
	byOwner := map[int32][]orphan{}
	var keys []int32
	_, err = pgx.ForEachRow(rows, []any{&o.id, &o.key, &o.host, &o.pid}, func() error {
		if _, seen := byOwner[o.key]; !seen {
			keys = append(keys, o.key)
		}
		byOwner[o.key] = append(byOwner[o.key], o)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("find running runs: %w", err)
	}
	marked := 0
	for _, key := range keys {
		if key == s.owner.key || key == 0 {
			continue // this store's own, alive by definition; or durable (trace.Run.Durable), owned by no store
		}
		n, err := s.reapOwner(ctx, key, byOwner[key])
		marked += n
		if err != nil {
			return marked, err
		}
	}
	return marked, nil
}

// orphan is a running run and its owner.
type orphan struct {
	id   string
	key  int32
	host string
	pid  int32
}

// reapOwner interrupts the runs of one owner if its lock is free. The lock
// is held while it does, so two reapers do not both do it, and the same
// connection releases it.
func (s *Store) reapOwner(ctx context.Context, key int32, runs []orphan) (int, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Release()
	var free bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1, $2)", s.owner.class, key).Scan(&free); err != nil {
		return 0, fmt.Errorf("check owner %d: %w", key, err)
	}
	if !free {
		return 0, nil
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1, $2)", s.owner.class, key)
	marked := 0
	for _, o := range runs {
		var done bool
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) (err error) {
			done, err = s.interrupt(ctx, tx, o)
			return err
		})
		if err != nil {
			return marked, fmt.Errorf("mark run %s interrupted: %w", o.id, err)
		}
		if done {
			marked++
		}
	}
	return marked, nil
}

// interrupt closes one orphaned run, its counter locked first as every
// writer of the run does. It reports false when the run was no longer
// running: someone finished or interrupted it meanwhile.
func (s *Store) interrupt(ctx context.Context, tx pgx.Tx, o orphan) (bool, error) {
	var key int64
	if err := tx.QueryRow(ctx, `INSERT INTO run_keys AS k (id) VALUES ($1)
ON CONFLICT (id) DO UPDATE SET seq = k.seq RETURNING pk`, o.id).Scan(&key); err != nil {
		return false, err
	}
	var last int64
	err := tx.QueryRow(ctx, `
SELECT greatest(r.started_at, max(s.started_at), max(s.ended_at))
FROM runs r LEFT JOIN spans s ON s.run_key = $2
WHERE r.id = $1 AND r.status = 'running'
GROUP BY r.started_at`, o.id, key).Scan(&last)
	if err == pgx.ErrNoRows {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	// Open spans end as interrupted, each with a new change number so live
	// pollers see them change.
	_, err = tx.Exec(ctx, `
WITH open AS (
    SELECT id, row_number() OVER (ORDER BY pk) AS n FROM spans
    WHERE run_key = $1 AND (ended_at IS NULL OR status = 'running')
), counter AS (
    SELECT seq FROM run_keys WHERE pk = $1
), closed AS (
    UPDATE spans s SET status = 'interrupted', ended_at = $2, seq = counter.seq + open.n
    FROM open, counter WHERE s.run_key = $1 AND s.id = open.id
    RETURNING 1
)
UPDATE run_keys SET seq = seq + (SELECT count(*) FROM closed) WHERE pk = $1`, key, last)
	if err != nil {
		return false, err
	}
	msg := fmt.Sprintf("interrupted: process %d on %s ended before the run finished", o.pid, o.host)
	if err := s.DenyPending(ctx, pgDB{tx}, o.id, last, msg); err != nil {
		return false, err
	}
	_, err = tx.Exec(ctx, "UPDATE runs SET status = 'interrupted', ended_at = $2, error = $3 WHERE id = $1", o.id, last, msg)
	return err == nil, err
}
