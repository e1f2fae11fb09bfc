package postgres

import (
	"context"
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/jackc/pgx/v5"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/internal/sqldb"
	"github.com/agentry/agentry/trace/internal/storekit"
)

// spanColumnList is read from spans s; the run ID is known to the caller.
const spanColumnList = `s.id, s.parent_id, s.kind, s.name, s.agent, s.depth, s.status, s.started_at,
    s.ended_at, s.input_tokens, s.output_tokens, s.error, s.attributes, s.events, s.seq`

// spansOfRun selects the spans of the run whose ID is $1.
const spansOfRun = " FROM spans s WHERE s.run_key = (SELECT pk FROM run_keys WHERE id = $1)"

// Spans returns a run's spans in start order; see trace.Store.
func (s *Store) Spans(ctx context.Context, runID string) ([]trace.Span, error) {
	spans, _, err := querySpans(ctx, s.pool, runID, "SELECT "+spanColumnList+spansOfRun+" ORDER BY s.started_at, s.pk", runID)
	if err != nil {
		return nil, fmt.Errorf("spans of run %q: %w", runID, err)
	}
	return spans, nil
}

// SpansSince returns the spans changed after cursor; see trace.Store. The
// cursor is the run's own change counter: a transaction that writes the
// run's spans holds the counter's row lock until it commits, so numbers
// become visible in order and a poller never steps over a late commit.
func (s *Store) SpansSince(ctx context.Context, runID string, cursor int64) ([]trace.Span, int64, error) {
	spans, last, err := querySpans(ctx, s.pool, runID, "SELECT "+spanColumnList+spansOfRun+
		" AND s.seq > $2 ORDER BY s.seq", runID, cursor)
	if err != nil {
		return nil, cursor, fmt.Errorf("spans of run %q since %d: %w", runID, cursor, err)
	}
	return spans, max(last, cursor), nil
}

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// querySpans runs a span query and returns the spans and their highest seq.
func querySpans(ctx context.Context, q querier, runID, sql string, args ...any) ([]trace.Span, int64, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var spans []trace.Span
	var last int64
	var sp trace.Span
	var kind, status string
	var depth int32
	var started, seq int64
	var ended *int64
	var attrs, events []byte
	_, err = pgx.ForEachRow(rows, []any{&sp.ID, &sp.ParentID, &kind, &sp.Name, &sp.Agent, &depth, &status,
		&started, &ended, &sp.InputTokens, &sp.OutputTokens, &sp.Error, &attrs, &events, &seq}, func() error {
		x := sp
		x.RunID, x.Kind, x.Status, x.Depth = runID, trace.Kind(kind), trace.Status(status), int(depth)
		x.StartedAt, x.EndedAt = sqldb.FromNS(&started), sqldb.FromNS(ended)
		if err := jsonv2.Unmarshal(attrs, &x.Attributes); err != nil {
			return fmt.Errorf("attributes of span %s: %w", x.ID, err)
		}
		if len(events) > 0 {
			var err error
			if x.Events, err = storekit.DecodeEvents(events); err != nil {
				return fmt.Errorf("events of span %s: %w", x.ID, err)
			}
		}
		spans, last = append(spans, x), max(last, seq)
		return nil
	})
	return spans, last, err
}
