package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/agentry/agentry/trace"
)

const spanColumns = `id, run_id, parent_id, kind, name, agent, depth, status, started_at,
    ended_at, input_tokens, output_tokens, error, attributes, seq`

// Spans returns a run's spans in start order; see trace.Store.
func (s *Store) Spans(ctx context.Context, runID string) ([]trace.Span, error) {
	spans, _, err := s.querySpans(ctx, "SELECT "+spanColumns+
		" FROM spans WHERE run_id = ? ORDER BY started_at, pk", runID)
	if err != nil {
		return nil, fmt.Errorf("spans of run %q: %w", runID, err)
	}
	return spans, nil
}

// SpansSince returns the spans changed after cursor; see trace.Store.
func (s *Store) SpansSince(ctx context.Context, runID string, cursor int64) ([]trace.Span, int64, error) {
	spans, last, err := s.querySpans(ctx, "SELECT "+spanColumns+
		" FROM spans WHERE run_id = ? AND seq > ? ORDER BY seq", runID, cursor)
	if err != nil {
		return nil, cursor, fmt.Errorf("spans of run %q since %d: %w", runID, cursor, err)
	}
	return spans, max(last, cursor), nil
}

// querySpans runs a span query and returns the spans and their highest seq.
func (s *Store) querySpans(ctx context.Context, q string, args ...any) ([]trace.Span, int64, error) {
	rows, err := s.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	return readSpans(rows)
}

// readSpans scans span rows, decoding their attributes alongside.
func readSpans(rows *sql.Rows) ([]trace.Span, int64, error) {
	var dec attrDecoder
	defer dec.stop()
	var last int64
	for rows.Next() {
		sp, attrs, seq, err := scanSpan(rows)
		if err != nil {
			return nil, 0, err
		}
		dec.add(sp, attrs)
		last = max(last, seq)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	spans, err := dec.finish()
	return spans, last, err
}

// scanSpan reads one row of spanColumns; the attributes stay raw JSON for
// the attrDecoder.
func scanSpan(sc scanner) (trace.Span, []byte, int64, error) {
	var sp trace.Span
	var started, ended sql.NullInt64
	var kind, status string
	var attrs []byte
	var seq int64
	err := sc.Scan(&sp.ID, &sp.RunID, &sp.ParentID, &kind, &sp.Name, &sp.Agent, &sp.Depth,
		&status, &started, &ended, &sp.InputTokens, &sp.OutputTokens, &sp.Error, &attrs, &seq)
	sp.Kind, sp.Status = trace.Kind(kind), trace.Status(status)
	sp.StartedAt, sp.EndedAt = fromNS(started), fromNS(ended)
	return sp, attrs, seq, err
}

const rollupSQL = `
SELECT agent,
    SUM(kind = 'invoke_agent'), SUM(kind = 'chat'), SUM(kind = 'execute_tool'),
    SUM(CASE WHEN kind = 'invoke_agent' AND ended_at IS NOT NULL THEN ended_at - started_at ELSE 0 END),
    SUM(CASE WHEN kind = 'chat' THEN input_tokens ELSE 0 END),
    SUM(CASE WHEN kind = 'chat' THEN output_tokens ELSE 0 END),
    SUM(status IN ('error', 'timeout', 'denied')),
    MIN(started_at) AS first
FROM spans WHERE run_id = ?
GROUP BY agent
ORDER BY first, agent`

// Rollup sums a run's spans per agent; see trace.Store.
func (s *Store) Rollup(ctx context.Context, runID string) ([]trace.AgentRollup, error) {
	rows, err := s.read.QueryContext(ctx, rollupSQL, runID)
	if err != nil {
		return nil, fmt.Errorf("rollup of run %q: %w", runID, err)
	}
	defer rows.Close()
	var out []trace.AgentRollup
	for rows.Next() {
		var r trace.AgentRollup
		var first int64
		if err := rows.Scan(&r.Agent, &r.Invocations, &r.ModelCalls, &r.ToolCalls, &r.Duration,
			&r.InputTokens, &r.OutputTokens, &r.Errors, &first); err != nil {
			return nil, fmt.Errorf("rollup of run %q: %w", runID, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
