package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/agentry/agentry/trace"
)

// spanColumns are read from spans s; the run ID is known to the caller.
const spanColumns = `s.id, s.parent_id, s.kind, s.name, s.agent, s.depth, s.status, s.started_at,
    s.ended_at, s.input_tokens, s.output_tokens, s.error, s.attributes, s.events, s.seq, s.pk`

// spansOfRun selects the spans of the run whose ID is the first parameter.
const spansOfRun = " FROM run_keys k JOIN spans s ON s.run_key = k.pk WHERE k.id = ?"

// Spans returns a run's spans in start order; see trace.Store. Sorting
// happens here rather than in SQL: SQLite's sorter would copy every row,
// attributes included, and Go sorts the decoded spans faster.
func (s *Store) Spans(ctx context.Context, runID string) ([]trace.Span, error) {
	spans, _, err := s.querySpans(ctx, runID, true, "SELECT "+spanColumns+spansOfRun, runID)
	if err != nil {
		return nil, fmt.Errorf("spans of run %q: %w", runID, err)
	}
	return spans, nil
}

// SpansSince returns the spans changed after cursor; see trace.Store.
func (s *Store) SpansSince(ctx context.Context, runID string, cursor int64) ([]trace.Span, int64, error) {
	spans, last, err := s.querySpans(ctx, runID, false, "SELECT "+spanColumns+
		spansOfRun+" AND s.seq > ? ORDER BY s.seq", runID, cursor)
	if err != nil {
		return nil, cursor, fmt.Errorf("spans of run %q since %d: %w", runID, cursor, err)
	}
	return spans, max(last, cursor), nil
}

// querySpans runs a span query and returns the spans and their highest seq.
func (s *Store) querySpans(ctx context.Context, runID string, byStart bool, q string, args ...any) ([]trace.Span, int64, error) {
	rows, err := s.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	return readSpans(rows, runID, byStart)
}

// readSpans scans the rows of one run's spans, decoding their attributes
// alongside, and sorts them in start order (ties in insertion order) if
// byStart is set.
func readSpans(rows *sql.Rows, runID string, byStart bool) ([]trace.Span, int64, error) {
	var dec attrDecoder
	defer dec.stop()
	var last int64
	var pks []int64
	for rows.Next() {
		sp, attrs, events, seq, pk, err := scanSpan(rows)
		if err != nil {
			return nil, 0, err
		}
		sp.RunID = runID
		dec.add(sp, attrs, events)
		last, pks = max(last, seq), append(pks, pk)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	spans, err := dec.finish()
	if err != nil || !byStart {
		return spans, last, err
	}
	return inStartOrder(spans, pks), last, nil
}

// inStartOrder returns spans sorted by start time, then by pks (insertion
// order), which holds each span's row key. It sorts small keys rather than
// the spans themselves, and not at all when the rows came in order.
func inStartOrder(spans []trace.Span, pks []int64) []trace.Span {
	type key struct{ start, pk, i int64 }
	keys := make([]key, len(spans))
	sorted := true
	for i, sp := range spans {
		keys[i] = key{sp.StartedAt.UnixNano(), pks[i], int64(i)}
		if i > 0 && cmpKey(keys[i-1].start, keys[i-1].pk, keys[i].start, keys[i].pk) > 0 {
			sorted = false
		}
	}
	if sorted {
		return spans
	}
	slices.SortFunc(keys, func(a, b key) int { return cmpKey(a.start, a.pk, b.start, b.pk) })
	out := make([]trace.Span, len(spans))
	for i, k := range keys {
		out[i] = spans[k.i]
	}
	return out
}

func cmpKey(startA, pkA, startB, pkB int64) int {
	if c := cmp.Compare(startA, startB); c != 0 {
		return c
	}
	return cmp.Compare(pkA, pkB)
}

type scanner interface{ Scan(dest ...any) error }

// scanSpan reads one row of spanColumns; the attributes and events stay raw
// JSON for the attrDecoder (events nil when the span has none).
func scanSpan(sc scanner) (sp trace.Span, attrs, events []byte, seq, pk int64, err error) {
	var started, ended sql.NullInt64
	var kind, status string
	err = sc.Scan(&sp.ID, &sp.ParentID, &kind, &sp.Name, &sp.Agent, &sp.Depth, &status,
		&started, &ended, &sp.InputTokens, &sp.OutputTokens, &sp.Error, &attrs, &events, &seq, &pk)
	sp.Kind, sp.Status = trace.Kind(kind), trace.Status(status)
	sp.StartedAt, sp.EndedAt = fromNS(started), fromNS(ended)
	return sp, attrs, events, seq, pk, err
}
