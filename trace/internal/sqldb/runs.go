package sqldb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/internal/storekit"
)

// runColumns are read from runs; the last is the store's Durable.
const runColumns = `id, agent, task, model, status, started_at, ended_at, result, error,
    input_tokens, output_tokens, agents, cost_usd, `

// Run returns one run; see trace.Store.
func (t *Tables) Run(ctx context.Context, id string) (trace.Run, error) {
	return t.RunIn(ctx, t.read, id)
}

// RunIn is Run on db, a transaction of the caller's (Export reads the run
// and its spans in one).
func (t *Tables) RunIn(ctx context.Context, db DB, id string) (trace.Run, error) {
	r, err := scanRun(db.QueryRow(ctx, "SELECT "+runColumns+t.durable+" FROM runs WHERE id = ?", id))
	if errors.Is(err, ErrNoRows) {
		return trace.Run{}, fmt.Errorf("run %q: %w", id, trace.ErrNotFound)
	}
	if err != nil {
		return trace.Run{}, fmt.Errorf("run %q: %w", id, err)
	}
	return r, nil
}

// Runs lists runs newest first, or most expensive first; see trace.Store.
func (t *Tables) Runs(ctx context.Context, f trace.RunFilter) (trace.RunPage, error) {
	where, args, err := t.runWhere(f)
	if err != nil {
		return trace.RunPage{}, err
	}
	limit := storekit.PageLimit(f.Limit)
	order := " ORDER BY started_at DESC, id DESC"
	if f.Sort == trace.SortCost {
		if f.Cursor != "" {
			return trace.RunPage{}, fmt.Errorf("list runs: %w: a cursor pages runs newest first only; page a cost listing by offset", trace.ErrInvalid)
		}
		order = " ORDER BY cost_usd DESC, started_at DESC, id DESC"
	}
	var page trace.RunPage
	rows, err := t.read.Query(ctx, "SELECT "+runColumns+t.durable+" FROM runs"+where+order+" LIMIT ? OFFSET ?",
		append(args, limit+1, max(f.Offset, 0))...)
	err = each(rows, err, func(rows Rows) error {
		r, err := scanRun(rows)
		page.Runs = append(page.Runs, r)
		return err
	})
	if err != nil {
		return trace.RunPage{}, fmt.Errorf("list runs: %w", err)
	}
	if len(page.Runs) > limit {
		page.Runs, page.More = page.Runs[:limit], true
		page.Next = storekit.Cursor(page.Runs[limit-1])
	}
	return page, nil
}

// runWhere turns a filter into a WHERE clause whose conditions the runs_by_*
// indexes can serve, newest first.
func (t *Tables) runWhere(f trace.RunFilter) (string, []any, error) {
	var conds []string
	var args []any
	add := func(cond string, a ...any) { conds, args = append(conds, cond), append(args, a...) }
	if f.Agent != "" {
		add("agent = ?", f.Agent)
	}
	if f.Status != "" {
		add("status = ?", string(f.Status))
	}
	if !f.Since.IsZero() {
		add("started_at >= ?", f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		add("started_at < ?", f.Until.UnixNano())
	}
	if f.Text != "" {
		text := strings.ToLower(f.Text)
		add("("+t.contains("task")+" OR "+t.contains("result")+")", text, text)
	}
	if f.Cursor != "" {
		at, id, err := storekit.ParseCursor(f.Cursor)
		if err != nil {
			return "", nil, err
		}
		add("(started_at, id) < (?, ?)", at.UnixNano(), id)
	}
	if len(conds) == 0 {
		return "", nil, nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args, nil
}

func scanRun(row Row) (trace.Run, error) {
	var r trace.Run
	var started int64
	var ended *int64
	var status string
	err := row.Scan(&r.ID, &r.Agent, &r.Task, &r.Model, &status, &started, &ended, &r.Result,
		&r.Error, &r.InputTokens, &r.OutputTokens, &r.Agents, &r.CostUSD, &r.Durable)
	r.Status, r.StartedAt, r.EndedAt = trace.Status(status), FromNS(&started), FromNS(ended)
	return r, err
}

// rollupSQL sums a run's spans per agent. The sums are cast to BIGINT:
// PostgreSQL's sum of BIGINT is NUMERIC.
const rollupSQL = `
SELECT agent,
    CAST(SUM(CASE WHEN kind = 'invoke_agent' THEN 1 ELSE 0 END) AS BIGINT),
    CAST(SUM(CASE WHEN kind = 'chat' THEN 1 ELSE 0 END) AS BIGINT),
    CAST(SUM(CASE WHEN kind = 'execute_tool' THEN 1 ELSE 0 END) AS BIGINT),
    CAST(SUM(CASE WHEN kind = 'invoke_agent' AND ended_at IS NOT NULL THEN ended_at - started_at ELSE 0 END) AS BIGINT),
    CAST(SUM(CASE WHEN kind = 'chat' THEN input_tokens ELSE 0 END) AS BIGINT),
    CAST(SUM(CASE WHEN kind = 'chat' THEN output_tokens ELSE 0 END) AS BIGINT),
    CAST(SUM(CASE WHEN status IN ('error', 'timeout', 'denied') THEN 1 ELSE 0 END) AS BIGINT),
    MIN(started_at) AS first
FROM spans WHERE run_key = (SELECT pk FROM run_keys WHERE id = ?)
GROUP BY agent
ORDER BY first, agent`

// Rollup sums a run's spans per agent; see trace.Store.
func (t *Tables) Rollup(ctx context.Context, runID string) ([]trace.AgentRollup, error) {
	var out []trace.AgentRollup
	rows, err := t.read.Query(ctx, rollupSQL, runID)
	err = each(rows, err, func(rows Rows) error {
		var r trace.AgentRollup
		var inv, chats, tools, dur, errs, first int64
		err := rows.Scan(&r.Agent, &inv, &chats, &tools, &dur, &r.InputTokens, &r.OutputTokens, &errs, &first)
		r.Invocations, r.ModelCalls, r.ToolCalls, r.Errors = int(inv), int(chats), int(tools), int(errs)
		r.Duration = time.Duration(dur)
		out = append(out, r)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("rollup of run %q: %w", runID, err)
	}
	return out, nil
}
