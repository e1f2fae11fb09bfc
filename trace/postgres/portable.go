package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/agentry/agentry/trace"
)

// Export returns a run and its spans; see trace.Store. Both are read in one
// repeatable-read transaction, so a run being written exports consistently.
func (s *Store) Export(ctx context.Context, id string) (trace.Document, error) {
	var doc trace.Document
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		r, err := s.RunIn(ctx, pgDB{tx}, id)
		if err != nil {
			return err
		}
		spans, _, err := querySpans(ctx, tx, id, "SELECT "+spanColumnList+spansOfRun+" ORDER BY s.started_at, s.pk", id)
		if err != nil {
			return fmt.Errorf("export run %q: %w", id, err)
		}
		if spans == nil {
			spans = []trace.Span{}
		}
		doc = trace.Document{Run: r, Spans: spans}
		return nil
	})
	return doc, err
}

// Import stores a document; see trace.Store. The run's counter row is
// locked before the check for a taken ID, so two imports of one document
// cannot both take its ID.
func (s *Store) Import(ctx context.Context, d trace.Document) (string, error) {
	if err := d.Validate(); err != nil {
		return "", fmt.Errorf("import: %w", err)
	}
	var id string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		id = d.Run.ID
		if _, err := tx.Exec(ctx, `INSERT INTO run_keys AS k (id) VALUES ($1)
ON CONFLICT (id) DO UPDATE SET seq = k.seq`, id); err != nil {
			return err
		}
		var taken bool
		if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM runs WHERE id = $1)", id).Scan(&taken); err != nil {
			return err
		}
		if taken {
			id = trace.NewRunID()
		}
		doc := d.WithRunID(id)
		return s.applyTx(ctx, tx, []trace.Run{doc.Run}, doc.Spans)
	})
	if err != nil {
		return "", fmt.Errorf("import run %q: %w", d.Run.ID, err)
	}
	return id, nil
}

// Delete removes a run and its spans; see trace.Store. The run's key and
// counter stay, so a poller's cursor stays valid if the ID comes back.
func (s *Store) Delete(ctx context.Context, id string) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var key int64
		err := tx.QueryRow(ctx, "SELECT pk FROM run_keys WHERE id = $1 FOR UPDATE", id).Scan(&key)
		if err != nil && err != pgx.ErrNoRows {
			return fmt.Errorf("delete run %q: %w", id, err)
		}
		tag, err := tx.Exec(ctx, "DELETE FROM runs WHERE id = $1", id)
		if err != nil {
			return fmt.Errorf("delete run %q: %w", id, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("delete run %q: %w", id, trace.ErrNotFound)
		}
		if _, err := tx.Exec(ctx, "DELETE FROM spans WHERE run_key = $1", key); err != nil {
			return fmt.Errorf("delete spans of run %q: %w", id, err)
		}
		return nil
	})
}
