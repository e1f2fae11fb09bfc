package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/agentry/agentry/trace"
)

// Export returns a run and its spans; see trace.Store. Both are read in one
// read transaction, so a run being written exports consistently.
func (s *Store) Export(ctx context.Context, id string) (trace.Document, error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return trace.Document{}, fmt.Errorf("export run %q: %w", id, err)
	}
	defer tx.Rollback()
	r, err := s.RunIn(ctx, sqlDB{tx}, id)
	if err != nil {
		return trace.Document{}, err
	}
	rows, err := tx.QueryContext(ctx, "SELECT "+spanColumns+spansOfRun, id)
	if err != nil {
		return trace.Document{}, fmt.Errorf("export run %q: %w", id, err)
	}
	defer rows.Close()
	spans, _, err := readSpans(rows, id, true)
	if err != nil {
		return trace.Document{}, fmt.Errorf("export run %q: %w", id, err)
	}
	if spans == nil {
		spans = []trace.Span{}
	}
	return trace.Document{Run: r, Spans: spans}, nil
}

// Import stores a document; see trace.Store. The check for a taken ID and
// the write happen in one transaction, so two imports cannot collide.
func (s *Store) Import(ctx context.Context, d trace.Document) (string, error) {
	if err := d.Validate(); err != nil {
		return "", fmt.Errorf("import: %w", err)
	}
	var id string
	var keys runKeys
	err := s.inWriteTx(ctx, func(tx writeTx) error {
		keys, id = runKeys{}, d.Run.ID
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM runs WHERE id = ?", id).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			id = trace.NewRunID()
		}
		doc := d.WithRunID(id)
		return s.applyTx(ctx, tx, keys, []trace.Run{doc.Run}, doc.Spans)
	})
	if err == nil {
		s.keys.learn(keys)
	}
	if err != nil {
		return "", fmt.Errorf("import run %q: %w", d.Run.ID, err)
	}
	return id, nil
}

// Delete removes a run and its spans; see trace.Store.
func (s *Store) Delete(ctx context.Context, id string) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM runs WHERE id = ?", id)
		if err != nil {
			return fmt.Errorf("delete run %q: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("delete run %q: %w", id, trace.ErrNotFound)
		}
		// The run's find index goes with it; run keys are never reused, but
		// an import under the same ID must be indexed anew.
		if _, err := tx.ExecContext(ctx, "DELETE FROM span_text WHERE rowid IN (SELECT pk FROM spans WHERE run_key = (SELECT pk FROM run_keys WHERE id = ?))", id); err != nil {
			return fmt.Errorf("delete find index of run %q: %w", id, err)
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM span_search_runs WHERE run_key = (SELECT pk FROM run_keys WHERE id = ?)", id); err != nil {
			return fmt.Errorf("delete find index of run %q: %w", id, err)
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM spans WHERE run_key = (SELECT pk FROM run_keys WHERE id = ?)", id); err != nil {
			return fmt.Errorf("delete spans of run %q: %w", id, err)
		}
		return nil
	})
}
