package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/internal/storekit"
	"github.com/agentry/agentry/trace/semconv"
)

// skeletonSQL reads what a timeline row needs and no more: no error text, no
// attribute JSON beyond the keys of trace.SkeletonAttributes (those of trace.InvocationOnly read
// from invocations only, a few rows, in one test of the kind), which SQLite extracts only from rows that
// mention them (instr is far cheaper than parsing), whatever the span's kind
// (the live merge keeps them all, so the first read must too), and events only of spans
// still running (a queued delegation is shown as such). The fields travel
// as one text joined by the unit separator: the driver's cost is per column
// (a lock and a conversion each), and with 16 columns it was most of the read.
const skeletonSQL = `SELECT s.id || char(31) || s.parent_id || char(31) || s.kind || char(31) || s.name || char(31) ||
    s.agent || char(31) || s.depth || char(31) || s.status || char(31) || s.started_at || char(31) ||
    coalesce(s.ended_at, '') || char(31) || s.input_tokens || char(31) || s.output_tokens || char(31) ||
    CASE WHEN instr(s.attributes, '"target_agent"') THEN coalesce(json_extract(s.attributes, '$.target_agent'), '') ELSE '' END || char(31) ||
    CASE WHEN instr(s.attributes, '"retry_attempt"') THEN coalesce(json_extract(s.attributes, '$.retry_attempt'), '') ELSE '' END || char(31) ||
    CASE WHEN instr(s.attributes, '"queued_ms"') THEN coalesce(json_extract(s.attributes, '$.queued_ms'), '') ELSE '' END || char(31) ||
    CASE WHEN instr(s.attributes, '"cost_usd"') THEN coalesce(json_extract(s.attributes, '$.cost_usd'), '') ELSE '' END || char(31) ||
    CASE WHEN instr(s.attributes, '"cached_input_tokens"') THEN coalesce(json_extract(s.attributes, '$.cached_input_tokens'), '') ELSE '' END || char(31) ||
    CASE WHEN s.kind IN ('invoke_agent', 'invoke_workflow') THEN
        coalesce(json_extract(s.attributes, '$.agent_version'), '') || char(31) ||
        coalesce(json_extract(s.attributes, '$.replay_of'), '') || char(31) ||
        coalesce(json_extract(s.attributes, '$.eval_suite'), '') || char(31) ||
        coalesce(json_extract(s.attributes, '$.eval_case'), '')
    ELSE char(31, 31, 31) END || char(31) ||
    s.seq || char(31) || s.pk,
    CASE WHEN s.ended_at IS NULL THEN s.events END` + spansOfRun

// skeletonFields is how many fields one row of skeletonSQL joins.
const skeletonFields = 22

// Skeleton reads a run's spans narrowly; see trace.Store.
func (s *Store) Skeleton(ctx context.Context, runID string) ([]trace.Span, int64, error) {
	// Counting first (from the index alone) spares growing the slices of a
	// big run a dozen times over.
	var n int
	if err := s.read.QueryRowContext(ctx, "SELECT count(*)"+spansOfRun, runID).Scan(&n); err != nil {
		return nil, 0, fmt.Errorf("skeleton of run %q: %w", runID, err)
	}
	rows, err := s.read.QueryContext(ctx, skeletonSQL, runID)
	if err != nil {
		return nil, 0, fmt.Errorf("skeleton of run %q: %w", runID, err)
	}
	defer rows.Close()
	spans, pks := make([]trace.Span, 0, n), make([]int64, 0, n)
	var last int64
	var line string
	var events []byte
	for rows.Next() {
		if err := rows.Scan(&line, &events); err != nil {
			return nil, 0, fmt.Errorf("skeleton of run %q: %w", runID, err)
		}
		sp, seq, pk, err := parseSkeleton(line)
		if err != nil {
			return nil, 0, fmt.Errorf("skeleton of run %q: %w", runID, err)
		}
		sp.RunID = runID
		if len(events) > 0 {
			if sp.Events, err = storekit.DecodeEvents(events); err != nil {
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

// skeletonNumbers are the skeleton attributes that are numbers; the
// others are text.
var skeletonNumbers = map[string]bool{semconv.AttrRetryAttempt: true, semconv.AttrQueuedMS: true, semconv.AttrCostUSD: true, semconv.AttrCachedInputTokens: true}

// parseSkeleton splits one row of skeletonSQL.
func parseSkeleton(line string) (sp trace.Span, seq, pk int64, err error) {
	var f [skeletonFields]string
	n := 0
	for n < skeletonFields-1 {
		i := strings.IndexByte(line, 31)
		if i < 0 {
			break
		}
		f[n], line = line[:i], line[i+1:]
		n++
	}
	f[n] = line
	if n != skeletonFields-1 {
		return sp, 0, 0, fmt.Errorf("a span's fields hold the unit separator: %q", f[0])
	}
	num := func(s string) int64 {
		v, e := strconv.ParseInt(s, 10, 64)
		if e != nil && err == nil {
			err = fmt.Errorf("span %s: bad number %q", f[0], s)
		}
		return v
	}
	sp = trace.Span{ID: f[0], ParentID: f[1], Kind: trace.Kind(f[2]), Name: f[3], Agent: f[4], Depth: int(num(f[5])),
		Status: trace.Status(f[6]), StartedAt: fromNS(sql.NullInt64{Int64: num(f[7]), Valid: true}),
		InputTokens: num(f[9]), OutputTokens: num(f[10])}
	if f[8] != "" {
		sp.EndedAt = fromNS(sql.NullInt64{Int64: num(f[8]), Valid: true})
	}
	for i, key := range trace.SkeletonAttributes { // in skeletonSQL's order
		v := f[11+i]
		if v == "" {
			continue
		}
		if sp.Attributes == nil {
			sp.Attributes = make(map[string]any, 1)
		}
		if !skeletonNumbers[key] {
			sp.Attributes[key] = v
		} else if x, e := strconv.ParseFloat(v, 64); e == nil {
			sp.Attributes[key] = x
		}
	}
	return sp, num(f[skeletonFields-2]), num(f[skeletonFields-1]), err
}

// Span reads one span whole; see trace.Store.
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
