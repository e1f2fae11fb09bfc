package postgres

import (
	"context"
	"fmt"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/jackc/pgx/v5"

	"github.com/agentry/agentry/trace"
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
		x.StartedAt, x.EndedAt = fromNS(&started), fromNS(ended)
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

const rollupSQL = `
SELECT agent,
    count(*) FILTER (WHERE kind = 'invoke_agent'), count(*) FILTER (WHERE kind = 'chat'),
    count(*) FILTER (WHERE kind = 'execute_tool'),
    coalesce(sum(ended_at - started_at) FILTER (WHERE kind = 'invoke_agent' AND ended_at IS NOT NULL), 0),
    coalesce(sum(input_tokens) FILTER (WHERE kind = 'chat'), 0),
    coalesce(sum(output_tokens) FILTER (WHERE kind = 'chat'), 0),
    count(*) FILTER (WHERE status IN ('error', 'timeout', 'denied')),
    min(started_at) AS first
FROM spans WHERE run_key = (SELECT pk FROM run_keys WHERE id = $1)
GROUP BY agent
ORDER BY first, agent`

// Rollup sums a run's spans per agent; see trace.Store.
func (s *Store) Rollup(ctx context.Context, runID string) ([]trace.AgentRollup, error) {
	rows, err := s.pool.Query(ctx, rollupSQL, runID)
	if err != nil {
		return nil, fmt.Errorf("rollup of run %q: %w", runID, err)
	}
	var out []trace.AgentRollup
	var r trace.AgentRollup
	var inv, chats, tools, errs int64
	var dur, first int64
	_, err = pgx.ForEachRow(rows, []any{&r.Agent, &inv, &chats, &tools, &dur, &r.InputTokens, &r.OutputTokens, &errs, &first}, func() error {
		r.Invocations, r.ModelCalls, r.ToolCalls, r.Errors = int(inv), int(chats), int(tools), int(errs)
		r.Duration = time.Duration(dur)
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("rollup of run %q: %w", runID, err)
	}
	return out, nil
}
