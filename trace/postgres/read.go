package postgres

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/jackc/pgx/v5"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/internal/sqldb"
	"github.com/agentry/agentry/trace/internal/storekit"
)

// skeletonSQL reads what a timeline row needs (trace.Store.Skeleton): no
// error text, of the attributes only the three a row shows, and events of
// running spans only. A key is looked for in the attributes' text before
// they are parsed for it: most spans have none of the three, and a tool
// span's attributes hold its whole output. The rows are put in start order
// here, not by the server, which would sort them on disk past work_mem.
var skeletonSQL = "SELECT s.id, s.parent_id, s.kind, s.name, s.agent, s.depth, s.status, s.started_at, s.ended_at, " +
	"s.input_tokens, s.output_tokens, CASE WHEN s.ended_at IS NULL THEN s.events END, s.seq, s.pk" +
	skeletonAttrs() + spansOfRun

// skeletonAttrs selects each of trace.SkeletonAttributes, NULL when absent.
func skeletonAttrs() string {
	var b strings.Builder
	for _, key := range trace.SkeletonAttributes {
		if trace.InvocationOnly[key] {
			fmt.Fprintf(&b, `, CASE WHEN s.kind IN ('%s', '%s') AND strpos(s.attributes::text, '"%[3]s"') > 0 THEN s.attributes -> '%[3]s' END`,
				trace.KindInvokeAgent, trace.KindInvokeWorkflow, key)
			continue
		}
		fmt.Fprintf(&b, `, CASE WHEN strpos(s.attributes::text, '"%[1]s"') > 0 THEN s.attributes -> '%[1]s' END`, key)
	}
	return b.String()
}

// Skeleton reads a run's spans narrowly; see trace.Store.
func (s *Store) Skeleton(ctx context.Context, runID string) ([]trace.Span, int64, error) {
	rows, err := s.pool.Query(ctx, skeletonSQL, sqldb.Clean(runID))
	if err != nil {
		return nil, 0, fmt.Errorf("skeleton of run %q: %w", runID, err)
	}
	var spans []trace.Span
	var last int64
	var sp trace.Span
	var kind, status string
	var depth int32
	var started, seq, pk int64
	var pks []int64
	var ended *int64
	attrs := make([][]byte, len(trace.SkeletonAttributes))
	var events []byte
	dest := []any{&sp.ID, &sp.ParentID, &kind, &sp.Name, &sp.Agent, &depth, &status,
		&started, &ended, &sp.InputTokens, &sp.OutputTokens, &events, &seq, &pk}
	for i := range attrs {
		dest = append(dest, &attrs[i])
	}
	_, err = pgx.ForEachRow(rows, dest, func() error {
		x := sp
		x.RunID, x.Kind, x.Status, x.Depth = runID, trace.Kind(kind), trace.Status(status), int(depth)
		x.StartedAt, x.EndedAt = sqldb.FromNS(&started), sqldb.FromNS(ended)
		for i, raw := range attrs {
			if raw == nil {
				continue
			}
			var v any
			if err := jsonv2.Unmarshal(raw, &v); err != nil {
				return fmt.Errorf("attribute %s of span %s: %w", trace.SkeletonAttributes[i], x.ID, err)
			}
			if x.Attributes == nil {
				x.Attributes = make(map[string]any, 1)
			}
			x.Attributes[trace.SkeletonAttributes[i]] = v
		}
		if len(events) > 0 {
			var err error
			if x.Events, err = storekit.DecodeEvents(events); err != nil {
				return fmt.Errorf("events of span %s: %w", x.ID, err)
			}
		}
		spans, pks, last = append(spans, x), append(pks, pk), max(last, seq)
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("skeleton of run %q: %w", runID, err)
	}
	return inStartOrder(spans, pks), last, nil
}

// inStartOrder returns spans sorted by start time, then by pks (insertion
// order), which holds each span's row key: the order Spans returns.
func inStartOrder(spans []trace.Span, pks []int64) []trace.Span {
	type key struct {
		start, pk int64
		i         int
	}
	keys := make([]key, len(spans))
	for i, sp := range spans {
		keys[i] = key{sp.StartedAt.UnixNano(), pks[i], i}
	}
	slices.SortFunc(keys, func(a, b key) int { return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.pk, b.pk)) })
	out := make([]trace.Span, len(spans))
	for i, k := range keys {
		out[i] = spans[k.i]
	}
	return out
}

// Span reads one span whole; see trace.Store.
func (s *Store) Span(ctx context.Context, runID, spanID string) (trace.Span, error) {
	spans, _, err := querySpans(ctx, s.pool, runID, "SELECT "+spanColumnList+spansOfRun+" AND s.id = $2", sqldb.Clean(runID), sqldb.Clean(spanID))
	if err != nil {
		return trace.Span{}, fmt.Errorf("span %q of run %q: %w", spanID, runID, err)
	}
	if len(spans) == 0 {
		return trace.Span{}, fmt.Errorf("span %q of run %q: %w", spanID, runID, trace.ErrNotFound)
	}
	return spans[0], nil
}

// FindSpans answers a find within a run; see trace.Store. Words are
// looked up in the spans_words index (migration 002), which every write
// keeps current; the condition must read span_words(s.attributes) exactly
// as the index does for the planner to use it.
func (s *Store) FindSpans(ctx context.Context, runID string, q trace.SpanQuery) ([]string, error) {
	where, args := []string{}, []any{sqldb.Clean(runID)}
	cond := func(sql string, arg any) {
		args = append(args, arg)
		where = append(where, strings.ReplaceAll(sql, "$?", "$"+strconv.Itoa(len(args))))
	}
	if q.Agent != "" {
		cond("s.agent = $?", sqldb.Clean(q.Agent))
	}
	if q.Status != "" {
		cond("s.status = $?", sqldb.Clean(string(q.Status)))
	}
	if q.Tool != "" {
		cond("s.kind = 'execute_tool' AND s.name = $?", sqldb.Clean("execute_tool "+q.Tool))
	}
	if words := q.Words(); len(words) > 0 {
		cond("span_words(s.attributes) @@ plainto_tsquery('simple', $?)", sqldb.Clean(strings.Join(words, " ")))
	}
	sql := "SELECT s.id" + spansOfRun
	for _, w := range where {
		sql += " AND " + w
	}
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("find in run %q: %w", runID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("find in run %q: %w", runID, err)
	}
	return ids, nil
}
