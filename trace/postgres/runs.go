package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/internal/storekit"
)

const runColumnList = `id, agent, task, model, status, started_at, ended_at, result, error,
    input_tokens, output_tokens, agents, cost_usd, owner_key = 0`

// Run returns one run; see trace.Store.
func (s *Store) Run(ctx context.Context, id string) (trace.Run, error) {
	return readRun(ctx, s.pool, id)
}

// querier is a pool or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

func readRun(ctx context.Context, q querier, id string) (trace.Run, error) {
	r, err := scanRun(q.QueryRow(ctx, "SELECT "+runColumnList+" FROM runs WHERE id = $1", id))
	if errors.Is(err, pgx.ErrNoRows) {
		return trace.Run{}, fmt.Errorf("run %q: %w", id, trace.ErrNotFound)
	}
	if err != nil {
		return trace.Run{}, fmt.Errorf("run %q: %w", id, err)
	}
	return r, nil
}

// Runs lists runs newest first, or most expensive first; see trace.Store.
func (s *Store) Runs(ctx context.Context, f trace.RunFilter) (trace.RunPage, error) {
	where, args, err := s.runWhere(f)
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
	n := len(args)
	q := "SELECT " + runColumnList + " FROM runs" + where + order + " LIMIT $" + strconv.Itoa(n+1) + " OFFSET $" + strconv.Itoa(n+2)
	rows, err := s.pool.Query(ctx, q, append(args, limit+1, max(f.Offset, 0))...)
	if err != nil {
		return trace.RunPage{}, fmt.Errorf("list runs: %w", err)
	}
	var page trace.RunPage
	page.Runs, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (trace.Run, error) { return scanRun(row) })
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
func (s *Store) runWhere(f trace.RunFilter) (string, []any, error) {
	var conds []string
	var args []any
	arg := func(a any) string { args = append(args, a); return "$" + strconv.Itoa(len(args)) }
	if f.Agent != "" {
		conds = append(conds, "agent = "+arg(f.Agent))
	}
	if f.Status != "" {
		conds = append(conds, "status = "+arg(string(f.Status)))
	}
	if !f.Since.IsZero() {
		conds = append(conds, "started_at >= "+arg(f.Since.UnixNano()))
	}
	if !f.Until.IsZero() {
		conds = append(conds, "started_at < "+arg(f.Until.UnixNano()))
	}
	if f.Text != "" {
		// strpos, not LIKE: the text is matched as written, % and _ included.
		t := arg(text(strings.ToLower(f.Text)))
		conds = append(conds, "(strpos("+fmt.Sprintf(s.fold, "task")+", "+t+") > 0 OR strpos("+
			fmt.Sprintf(s.fold, "result")+", "+t+") > 0)")
	}
	if f.Cursor != "" {
		t, id, err := storekit.ParseCursor(f.Cursor)
		if err != nil {
			return "", nil, err
		}
		conds = append(conds, "(started_at, id) < ("+arg(t.UnixNano())+", "+arg(id)+")")
	}
	if len(conds) == 0 {
		return "", nil, nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args, nil
}

func scanRun(row pgx.Row) (trace.Run, error) {
	var r trace.Run
	var started int64
	var ended *int64
	var status string
	var agents int32
	err := row.Scan(&r.ID, &r.Agent, &r.Task, &r.Model, &status, &started, &ended, &r.Result,
		&r.Error, &r.InputTokens, &r.OutputTokens, &agents, &r.CostUSD, &r.Durable)
	r.Status, r.StartedAt, r.EndedAt, r.Agents = trace.Status(status), fromNS(&started), fromNS(ended), int(agents)
	return r, err
}
