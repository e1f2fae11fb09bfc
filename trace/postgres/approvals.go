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
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/internal/storekit"
)

var _ approval.Store = (*Store)(nil)

const approvalColumns = `id, run_id, span_id, agent, tool, subject, arguments, reason, status,
    requested_at, decided_at, decided_by, for_run, note, secret, seal`

// RequestApproval records a pending approval; see approval.Store.
func (s *Store) RequestApproval(ctx context.Context, a approval.Approval) error {
	if err := approval.Check(a); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO approvals (`+approvalColumns+`)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, NULL, '', false, '', $10, '')`,
		text(a.ID), text(a.RunID), text(a.SpanID), text(a.Agent), text(a.Tool), text(a.Subject),
		text(a.Arguments), text(a.Reason), toNS(a.RequestedAt), text(a.Secret))
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" { // unique_violation
		return fmt.Errorf("approval %q: %w", a.ID, approval.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("request approval %s: %w", a.ID, err)
	}
	return nil
}

// DecideApproval answers a pending approval; see approval.Store. The
// row is read FOR UPDATE and written in one transaction, so of two
// processes answering at once the second waits for the first's row lock
// and reads its answer: exactly one wins.
func (s *Store) DecideApproval(ctx context.Context, id string, ans approval.Answer) (approval.Approval, error) {
	var out approval.Approval
	var decided bool
	ans.By, ans.Note = text(ans.By), text(ans.Note) // sealed as stored
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		a, err := scanApproval(tx.QueryRow(ctx, "SELECT "+approvalColumns+" FROM approvals WHERE id = $1 FOR UPDATE", id))
		if err != nil || a.Status != approval.Pending {
			out = a
			return err
		}
		out, decided = a.Decided(ans), true
		return writeDecision(ctx, tx, out)
	})
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return approval.Approval{}, fmt.Errorf("approval %q: %w", id, trace.ErrNotFound)
	case err != nil:
		return approval.Approval{}, fmt.Errorf("decide approval %q: %w", id, err)
	case !decided:
		return out, fmt.Errorf("approval %q: %w (%s by %s)", id, approval.ErrDecided, out.Status, out.DecidedBy)
	}
	return out, nil
}

// writeDecision stores a's decision and seal.
func writeDecision(ctx context.Context, tx pgx.Tx, a approval.Approval) error {
	_, err := tx.Exec(ctx, `UPDATE approvals SET status = $2, decided_at = $3, decided_by = $4, for_run = $5, note = $6, seal = $7
WHERE id = $1`, a.ID, string(a.Status), toNS(a.DecidedAt), text(a.DecidedBy), a.ForRun, text(a.Note), a.Seal)
	return err
}

// Approval returns one approval; see approval.Store.
func (s *Store) Approval(ctx context.Context, id string) (approval.Approval, error) {
	a, err := scanApproval(s.pool.QueryRow(ctx, "SELECT "+approvalColumns+" FROM approvals WHERE id = $1", id))
	if errors.Is(err, pgx.ErrNoRows) {
		return approval.Approval{}, fmt.Errorf("approval %q: %w", id, trace.ErrNotFound)
	}
	if err != nil {
		return approval.Approval{}, fmt.Errorf("approval %q: %w", id, err)
	}
	return a, nil
}

// Approvals lists approvals; see approval.Store.
func (s *Store) Approvals(ctx context.Context, f approval.Filter) ([]approval.Approval, error) {
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
		"CASE WHEN status = 'pending' THEN id END, id DESC LIMIT " + arg(storekit.PageLimit(f.Limit))
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list approvals: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (approval.Approval, error) { return scanApproval(row) })
	if err != nil {
		return nil, fmt.Errorf("list approvals: %w", err)
	}
	return out, nil
}

// PendingApprovals counts pending approvals; see approval.Store.
func (s *Store) PendingApprovals(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM approvals WHERE status = 'pending'").Scan(&n); err != nil {
		return 0, fmt.Errorf("count pending approvals: %w", err)
	}
	return n, nil
}

func scanApproval(row pgx.Row) (approval.Approval, error) {
	var a approval.Approval
	var status string
	var requested int64
	var decided *int64
	err := row.Scan(&a.ID, &a.RunID, &a.SpanID, &a.Agent, &a.Tool, &a.Subject, &a.Arguments, &a.Reason, &status,
		&requested, &decided, &a.DecidedBy, &a.ForRun, &a.Note, &a.Secret, &a.Seal)
	a.Status, a.RequestedAt, a.DecidedAt = approval.Status(status), fromNS(&requested), fromNS(decided)
	return a.Checked(), err
}

// denyPendingOf answers a run's pending approvals with a denial, for a run
// that ended without its process answering them (it was interrupted).
func denyPendingOf(ctx context.Context, tx pgx.Tx, runID string, at int64, why string) error {
	rows, err := tx.Query(ctx, "SELECT "+approvalColumns+" FROM approvals WHERE run_id = $1 AND status = 'pending' FOR UPDATE", runID)
	if err != nil {
		return err
	}
	pending, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (approval.Approval, error) { return scanApproval(r) })
	if err != nil {
		return err
	}
	for _, a := range pending {
		if err := writeDecision(ctx, tx, a.Decided(approval.Answer{By: "agentry", Note: why, At: fromNS(&at)})); err != nil {
			return err
		}
	}
	return nil
}
