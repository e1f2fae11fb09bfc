package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/internal/storekit"
)

const runColumns = `id, agent, task, model, status, started_at, ended_at, result, error,
    input_tokens, output_tokens, agents, cost_usd, owner_pid = 0`

// Run returns one run; see trace.Store.
func (s *Store) Run(ctx context.Context, id string) (trace.Run, error) {
	row := s.read.QueryRowContext(ctx, "SELECT "+runColumns+" FROM runs WHERE id = ?", id)
	r, err := scanRun(row)
	if errors.Is(err, sql.ErrNoRows) {
		return trace.Run{}, fmt.Errorf("run %q: %w", id, trace.ErrNotFound)
	}
	if err != nil {
		return trace.Run{}, fmt.Errorf("run %q: %w", id, err)
	}
	return r, nil
}

// Runs lists runs newest first; see trace.Store.
func (s *Store) Runs(ctx context.Context, f trace.RunFilter) (trace.RunPage, error) {
	where, args, err := runWhere(f)
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
	q := "SELECT " + runColumns + " FROM runs" + where + order + " LIMIT ? OFFSET ?"
	rows, err := s.read.QueryContext(ctx, q, append(args, limit+1, max(f.Offset, 0))...)
	if err != nil {
		return trace.RunPage{}, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	var page trace.RunPage
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return trace.RunPage{}, fmt.Errorf("list runs: %w", err)
		}
		page.Runs = append(page.Runs, r)
	}
	if err := rows.Err(); err != nil {
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
func runWhere(f trace.RunFilter) (string, []any, error) {
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
		add("("+foldContainsFunc+"(task, ?) OR "+foldContainsFunc+"(result, ?))", text, text)
	}
	if f.Cursor != "" {
		t, id, err := storekit.ParseCursor(f.Cursor)
		if err != nil {
			return "", nil, err
		}
		add("(started_at, id) < (?, ?)", t.UnixNano(), id)
	}
	if len(conds) == 0 {
		return "", nil, nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args, nil
}

type scanner interface{ Scan(dest ...any) error }

func scanRun(sc scanner) (trace.Run, error) {
	var r trace.Run
	var started, ended sql.NullInt64
	var status string
	err := sc.Scan(&r.ID, &r.Agent, &r.Task, &r.Model, &status, &started, &ended, &r.Result,
		&r.Error, &r.InputTokens, &r.OutputTokens, &r.Agents, &r.CostUSD, &r.Durable)
	r.Status, r.StartedAt, r.EndedAt = trace.Status(status), fromNS(started), fromNS(ended)
	return r, err
}
