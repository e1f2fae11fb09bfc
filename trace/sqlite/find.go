package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/agentry/agentry/trace"
)

// FindSpans answers a find within a run; see trace.Store. Words are
// looked up in the span_text FTS5 index (migration 004), which is brought
// up to date for this run first: filled on the run's first search, topped
// up with the spans written since on later ones.
func (s *Store) FindSpans(ctx context.Context, runID string, q trace.SpanQuery) ([]string, error) {
	where, args := []string{"k.id = ?"}, []any{runID}
	if q.Agent != "" {
		where, args = append(where, "s.agent = ?"), append(args, q.Agent)
	}
	if q.Status != "" {
		where, args = append(where, "s.status = ?"), append(args, string(q.Status))
	}
	if q.Tool != "" {
		where, args = append(where, "s.kind = 'execute_tool' AND s.name = ?"), append(args, "execute_tool "+q.Tool)
	}
	if match := ftsPhrases(q.Words()); match != "" {
		if err := s.indexText(ctx, runID); err != nil {
			return nil, fmt.Errorf("find in run %q: %w", runID, err)
		}
		where = append(where, "s.pk IN (SELECT rowid FROM span_text WHERE span_text MATCH ?)")
		args = append(args, match)
	}
	rows, err := s.read.QueryContext(ctx, "SELECT s.id FROM run_keys k JOIN spans s ON s.run_key = k.pk WHERE "+
		strings.Join(where, " AND "), args...)
	if err != nil {
		return nil, fmt.Errorf("find in run %q: %w", runID, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("find in run %q: %w", runID, err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// ftsPhrases turns the query's words into an FTS5 query that means "all
// these words": each word is a quoted string, so AND and NEAR are words,
// never syntax. "" when there are no words.
func ftsPhrases(words []string) string {
	var b strings.Builder
	for _, w := range words {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(`"` + strings.ReplaceAll(w, `"`, `""`) + `"`)
	}
	return b.String()
}

// indexText brings the run's rows of span_text up to date: the spans
// written since the run was last indexed are (re)indexed, in one write
// transaction so no span slips between the insert and the recorded seq.
func (s *Store) indexText(ctx context.Context, runID string) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		var key, done int64
		err := tx.QueryRowContext(ctx, `SELECT k.pk, coalesce((SELECT seq FROM span_search_runs WHERE run_key = k.pk), -1)
			FROM run_keys k WHERE k.id = ?`, runID).Scan(&key, &done)
		if err == sql.ErrNoRows {
			return nil // no spans at all
		}
		if err != nil {
			return err
		}
		var top int64
		if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(seq), 0) FROM spans WHERE run_key = ?", key).Scan(&top); err != nil {
			return err
		}
		if top <= done {
			return nil
		}
		if done >= 0 { // spans indexed before and changed since: drop their old words
			if _, err := tx.ExecContext(ctx, "DELETE FROM span_text WHERE rowid IN (SELECT pk FROM spans WHERE run_key = ? AND seq > ?)", key, done); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO span_text (rowid, task, result)
			SELECT pk, coalesce(json_extract(attributes, '$.task'), ''), coalesce(json_extract(attributes, '$.result'), '')
			FROM spans WHERE run_key = ? AND seq > ?`, key, max(done, 0)); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "INSERT OR REPLACE INTO span_search_runs (run_key, seq) VALUES (?, ?)", key, top)
		return err
	})
}
