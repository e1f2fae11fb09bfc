package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agentry/agentry/trace"
)

var _ trace.ApprovalStore = (*Store)(nil)

const approvalColumns = `id, run_id, span_id, agent, tool, subject, arguments, reason, status,
    requested_at, decided_at, decided_by, for_run, note`

// RequestApproval records a pending approval; see trace.ApprovalStore.
func (s *Store) RequestApproval(ctx context.Context, a trace.Approval) error {
	if err := trace.CheckApproval(a); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO approvals (`+approvalColumns+`)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, NULL, '', false, '')`,
		text(a.ID), text(a.RunID), text(a.SpanID), text(a.Agent), text(a.Tool), text(a.Subject),
		text(a.Arguments), text(a.Reason), toNS(a.RequestedAt))
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" { // unique_violation
		return fmt.Errorf("approval %q: %w", a.ID, trace.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("request approval %s: %w", a.ID, err)
	}
	return nil
}

// DecideApproval answers a pending approval; see trace.ApprovalStore. The
// UPDATE only touches a pending row, and PostgreSQL re-checks that after
// waiting on a concurrent answer's row lock, so of two processes answering
// at once exactly one wins; the other reads the winner's answer.
func (s *Store) DecideApproval(ctx context.Context, id string, ans trace.Answer) (trace.Approval, error) {
	d := trace.Approval{}.Decided(ans)
	out, err := scanApproval(s.pool.QueryRow(ctx, `UPDATE approvals
SET status = $2, decided_at = $3, decided_by = $4, for_run = $5, note = $6
WHERE id = $1 AND status = 'pending' RETURNING `+approvalColumns,
		id, string(d.Status), toNS(d.DecidedAt), text(d.DecidedBy), d.ForRun, text(d.Note)))
	if err == nil {
		return out, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return trace.Approval{}, fmt.Errorf("decide approval %q: %w", id, err)
	}
	out, err = s.Approval(ctx, id)
	if err != nil {
		return trace.Approval{}, err
	}
	return out, fmt.Errorf("approval %q: %w (%s by %s)", id, trace.ErrDecided, out.Status, out.DecidedBy)
}

// Approval returns one approval; see trace.ApprovalStore.
func (s *Store) Approval(ctx context.Context, id string) (trace.Approval, error) {
	a, err := scanApproval(s.pool.QueryRow(ctx, "SELECT "+approvalColumns+" FROM approvals WHERE id = $1", id))
	if errors.Is(err, pgx.ErrNoRows) {
		return trace.Approval{}, fmt.Errorf("approval %q: %w", id, trace.ErrNotFound)
	}
	if err != nil {
		return trace.Approval{}, fmt.Errorf("approval %q: %w", id, err)
	}
	return a, nil
}

// Approvals lists approvals; see trace.ApprovalStore.
func (s *Store) Approvals(ctx context.Context, f trace.ApprovalFilter) ([]trace.Approval, error) {
	var conds []string
	var args []any
	arg := func(a any) string { args = append(args, a); return "$" + strconv.Itoa(len(args)) }
	if f.RunID != "" {
		conds = append(conds, "run_id = "+arg(f.RunID))
	}
	if f.Status != "" {
		conds = append(conds, "status = "+arg(string(f.Status)))
	}
	where := ""
	if len(conds) > 0 {
		where = " WHERE " + strings.Join(conds, " AND ")
	}
	q := "SELECT " + approvalColumns + " FROM approvals" + where +
		" ORDER BY status <> 'pending', CASE WHEN status = 'pending' THEN requested_at ELSE -requested_at END, " +
		"CASE WHEN status = 'pending' THEN id END, id DESC LIMIT " + arg(pageLimit(f.Limit))
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list approvals: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (trace.Approval, error) { return scanApproval(row) })
	if err != nil {
		return nil, fmt.Errorf("list approvals: %w", err)
	}
	return out, nil
}

// PendingApprovals counts pending approvals; see trace.ApprovalStore.
func (s *Store) PendingApprovals(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM approvals WHERE status = 'pending'").Scan(&n); err != nil {
		return 0, fmt.Errorf("count pending approvals: %w", err)
	}
	return n, nil
}

func scanApproval(row pgx.Row) (trace.Approval, error) {
	var a trace.Approval
	var status string
	var requested int64
	var decided *int64
	err := row.Scan(&a.ID, &a.RunID, &a.SpanID, &a.Agent, &a.Tool, &a.Subject, &a.Arguments, &a.Reason, &status,
		&requested, &decided, &a.DecidedBy, &a.ForRun, &a.Note)
	a.Status, a.RequestedAt, a.DecidedAt = trace.ApprovalStatus(status), fromNS(&requested), fromNS(decided)
	return a, err
}

// denyPendingOf answers a run's pending approvals with a denial, for a run
// that ended without its process answering them (it was interrupted).
func denyPendingOf(ctx context.Context, tx pgx.Tx, runID string, at int64, why string) error {
	_, err := tx.Exec(ctx, `UPDATE approvals SET status = 'denied', decided_at = $2, decided_by = 'agentry', note = $3
WHERE run_id = $1 AND status = 'pending'`, runID, at, why)
	return err
}
