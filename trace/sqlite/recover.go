package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// orphan is a run left running whose owner may be gone.
type orphan struct {
	id    string
	owner owner
}

// MarkInterrupted marks every run left running by a process that no longer
// exists as interrupted, with its open spans, at the last time the run
// recorded, and returns how many runs it marked. Open does this; a long-lived
// process sharing the database (agentry serve) may call it again to catch
// runs of processes killed since.
func (s *Store) MarkInterrupted(ctx context.Context) (int, error) {
	// Candidates come from the read pool, so a periodic reaper never queues
	// behind the recorder's batches; interrupt checks again under the lock.
	rows, err := s.read.QueryContext(ctx,
		"SELECT id, owner_host, owner_pid, owner_start FROM runs WHERE status = 'running'")
	if err != nil {
		return 0, fmt.Errorf("find running runs: %w", err)
	}
	var dead []orphan
	for rows.Next() {
		var o orphan
		if err := rows.Scan(&o.id, &o.owner.host, &o.owner.pid, &o.owner.start); err != nil {
			rows.Close()
			return 0, fmt.Errorf("find running runs: %w", err)
		}
		if !s.owner.alive(o.owner) {
			dead = append(dead, o)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("find running runs: %w", err)
	}
	for i, o := range dead {
		if err := s.inTx(ctx, func(tx *sql.Tx) error { return s.interrupt(ctx, tx, o) }); err != nil {
			return i, fmt.Errorf("mark run %s interrupted: %w", o.id, err)
		}
	}
	return len(dead), nil
}

// interrupt closes one orphaned run. The status check inside the write
// transaction keeps a concurrent Open in another process from doing it twice.
func (s *Store) interrupt(ctx context.Context, tx *sql.Tx, o orphan) error {
	var last int64
	err := tx.QueryRowContext(ctx, `
SELECT max(r.started_at, coalesce(max(s.started_at), 0), coalesce(max(s.ended_at), 0))
FROM runs r LEFT JOIN run_keys k ON k.id = r.id LEFT JOIN spans s ON s.run_key = k.pk
WHERE r.id = ? AND r.status = 'running'
GROUP BY r.id`, o.id).Scan(&last)
	if err == sql.ErrNoRows {
		return nil // someone else finished or interrupted it
	}
	if err != nil {
		return err
	}
	if err := closeOpenSpans(ctx, tx, o.id, last); err != nil {
		return err
	}
	msg := fmt.Sprintf("interrupted: process %d on %s ended before the run finished", o.owner.pid, o.owner.host)
	if err := s.DenyPending(ctx, sqlDB{tx}, o.id, last, msg); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx,
		"UPDATE runs SET status = 'interrupted', ended_at = ?, error = ? WHERE id = ?", last, msg, o.id)
	return err
}

// closeOpenSpans ends a run's open spans as interrupted at last, each with a
// new change number so live pollers see them change.
func closeOpenSpans(ctx context.Context, tx *sql.Tx, runID string, last int64) error {
	const openSpans = "run_key = (SELECT pk FROM run_keys WHERE id = ?) AND (ended_at IS NULL OR status = 'running')"
	rows, err := tx.QueryContext(ctx, "SELECT pk FROM spans WHERE "+openSpans+" ORDER BY pk", runID)
	if err != nil {
		return err
	}
	var pks []int64
	for rows.Next() {
		var pk int64
		if err := rows.Scan(&pk); err != nil {
			rows.Close()
			return err
		}
		pks = append(pks, pk)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(pks) == 0 {
		return err
	}
	var seq int64
	if err := tx.QueryRowContext(ctx, bumpSeqSQL, len(pks)).Scan(&seq); err != nil {
		return err
	}
	seq -= int64(len(pks))
	for _, pk := range pks {
		seq++
		if _, err := tx.ExecContext(ctx, "UPDATE spans SET status = 'interrupted', ended_at = ?, seq = ? WHERE pk = ?",
			last, seq, pk); err != nil {
			return err
		}
	}
	return nil
}
