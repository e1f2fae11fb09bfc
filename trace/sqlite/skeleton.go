package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/agentry/agentry/trace"
)

// skeletonSQL reads what a timeline row needs and no more: no error text, no
// attribute JSON beyond three keys, which SQLite extracts only from rows that
// mention them (instr is far cheaper than parsing), and events only of spans
// still running (a queued delegation is shown as such).
const skeletonSQL = `SELECT s.id, s.parent_id, s.kind, s.name, s.agent, s.depth, s.status, s.started_at,
    s.ended_at, s.input_tokens, s.output_tokens,
    CASE WHEN s.kind = 'execute_tool' AND instr(s.attributes, '"target_agent"') THEN json_extract(s.attributes, '$.target_agent') END,
    CASE WHEN instr(s.attributes, '"retry_attempt"') THEN json_extract(s.attributes, '$.retry_attempt') END,
    CASE WHEN instr(s.attributes, '"queued_ms"') THEN json_extract(s.attributes, '$.queued_ms') END,
    CASE WHEN s.ended_at IS NULL THEN s.events END, s.seq, s.pk` + spansOfRun

// Skeleton reads a run's spans narrowly; see trace.SkeletonReader.
func (s *Store) Skeleton(ctx context.Context, runID string) ([]trace.Span, int64, error) {
	rows, err := s.read.QueryContext(ctx, skeletonSQL, runID)
	if err != nil {
		return nil, 0, fmt.Errorf("skeleton of run %q: %w", runID, err)
	}
	defer rows.Close()
	var spans []trace.Span
	var pks []int64
	var last int64
	for rows.Next() {
		var sp trace.Span
		var started, ended sql.NullInt64
		var target sql.NullString
		var retry, queued sql.NullFloat64
		var events []byte
		var kind, status string
		var seq, pk int64
		if err := rows.Scan(&sp.ID, &sp.ParentID, &kind, &sp.Name, &sp.Agent, &sp.Depth, &status, &started, &ended,
			&sp.InputTokens, &sp.OutputTokens, &target, &retry, &queued, &events, &seq, &pk); err != nil {
			return nil, 0, fmt.Errorf("skeleton of run %q: %w", runID, err)
		}
		sp.RunID, sp.Kind, sp.Status = runID, trace.Kind(kind), trace.Status(status)
		sp.StartedAt, sp.EndedAt = fromNS(started), fromNS(ended)
		if target.Valid || retry.Valid || queued.Valid {
			sp.Attributes = make(map[string]any, 1)
			if target.Valid {
				sp.Attributes[trace.AttrTargetAgent] = target.String
			}
			if retry.Valid {
				sp.Attributes[trace.AttrRetryAttempt] = retry.Float64
			}
			if queued.Valid {
				sp.Attributes[trace.AttrQueuedMS] = queued.Float64
			}
		}
		if len(events) > 0 {
			if sp.Events, err = decodeEvents(events); err != nil {
				return nil, 0, fmt.Errorf("skeleton of run %q: span %s: %w", runID, sp.ID, err)
			}
		}
		spans, pks, last = append(spans, sp), append(pks, pk), max(last, seq)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("skeleton of run %q: %w", runID, err)
	}
	return inStartOrder(spans, pks), last, nil
}

// Span reads one span whole; see trace.SpanReader.
func (s *Store) Span(ctx context.Context, runID, spanID string) (trace.Span, error) {
	spans, _, err := s.querySpans(ctx, runID, false, "SELECT "+spanColumns+spansOfRun+" AND s.id = ?", runID, spanID)
	if err != nil {
		return trace.Span{}, fmt.Errorf("span %q of run %q: %w", spanID, runID, err)
	}
	if len(spans) == 0 {
		return trace.Span{}, fmt.Errorf("span %q of run %q: %w", spanID, runID, trace.ErrNotFound)
	}
	return spans[0], nil
}

var (
	_ trace.SkeletonReader = (*Store)(nil)
	_ trace.SpanReader     = (*Store)(nil)
	_ trace.SpanFinder     = (*Store)(nil)
)
