package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"modernc.org/sqlite"

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
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO approvals (`+approvalColumns+`)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, NULL, '', 0, '', ?, '')`,
			a.ID, a.RunID, a.SpanID, a.Agent, a.Tool, a.Subject, a.Arguments, a.Reason, toNS(a.RequestedAt), a.Secret)
		return err
	})
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code() == 1555 { // SQLITE_CONSTRAINT_PRIMARYKEY
		return fmt.Errorf("approval %q: %w", a.ID, approval.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("request approval %s: %w", a.ID, err)
	}
	return nil
}

// DecideApproval answers a pending approval; see approval.Store. The
// row is read and written in one immediate transaction, which holds the
// database's write lock, so of two processes answering at once exactly one
// wins and the other reads the winner's answer.
func (s *Store) DecideApproval(ctx context.Context, id string, ans approval.Answer) (approval.Approval, error) {
	var out approval.Approval
	var decided bool
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		a, err := scanApproval(tx.QueryRowContext(ctx, "SELECT "+approvalColumns+" FROM approvals WHERE id = ?", id))
		if err != nil || a.Status != approval.Pending {
			out = a
			return err
		}
		out, decided = a.Decided(ans), true
		return writeDecision(ctx, tx, out)
	})
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return approval.Approval{}, fmt.Errorf("approval %q: %w", id, trace.ErrNotFound)
	case err != nil:
		return approval.Approval{}, fmt.Errorf("decide approval %q: %w", id, err)
	case !decided:
		return out, fmt.Errorf("approval %q: %w (%s by %s)", id, approval.ErrDecided, out.Status, out.DecidedBy)
	}
	return out, nil
}

// writeDecision stores a's decision and seal.
func writeDecision(ctx context.Context, tx *sql.Tx, a approval.Approval) error {
	_, err := tx.ExecContext(ctx, `UPDATE approvals SET status = ?, decided_at = ?, decided_by = ?, for_run = ?, note = ?, seal = ?
WHERE id = ?`, string(a.Status), toNS(a.DecidedAt), a.DecidedBy, a.ForRun, a.Note, a.Seal, a.ID)
	return err
}

// Approval returns one approval; see approval.Store.
func (s *Store) Approval(ctx context.Context, id string) (approval.Approval, error) {
	a, err := scanApproval(s.read.QueryRowContext(ctx, "SELECT "+approvalColumns+" FROM approvals WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
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
	if f.RunID != "" {
		conds, args = append(conds, "run_id = ?"), append(args, f.RunID)
	}
	if f.Status != "" {
		conds, args = append(conds, "status = ?"), append(args, string(f.Status))
	}
	where := ""
	if len(conds) > 0 {
		where = " WHERE " + strings.Join(conds, " AND ")
	}
	q := "SELECT " + approvalColumns + " FROM approvals" + where +
		" ORDER BY status <> 'pending', CASE WHEN status = 'pending' THEN requested_at ELSE -requested_at END, " +
		"CASE WHEN status = 'pending' THEN id END, id DESC LIMIT ?"
	rows, err := s.read.QueryContext(ctx, q, append(args, storekit.PageLimit(f.Limit))...)
	if err != nil {
		return nil, fmt.Errorf("list approvals: %w", err)
	}
	defer rows.Close()
	var out []approval.Approval
	for rows.Next() {
		a, err := scanApproval(rows)
		if err != nil {
			return nil, fmt.Errorf("list approvals: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// PendingApprovals counts pending approvals; see approval.Store.
func (s *Store) PendingApprovals(ctx context.Context) (int, error) {
	var n int
	if err := s.read.QueryRowContext(ctx, "SELECT count(*) FROM approvals WHERE status = 'pending'").Scan(&n); err != nil {
		return 0, fmt.Errorf("count pending approvals: %w", err)
	}
	return n, nil
}

func scanApproval(sc scanner) (approval.Approval, error) {
	var a approval.Approval
	var status string
	var requested int64
	var decided sql.NullInt64
	err := sc.Scan(&a.ID, &a.RunID, &a.SpanID, &a.Agent, &a.Tool, &a.Subject, &a.Arguments, &a.Reason, &status,
		&requested, &decided, &a.DecidedBy, &a.ForRun, &a.Note, &a.Secret, &a.Seal)
	a.Status, a.RequestedAt, a.DecidedAt = approval.Status(status), fromNS(sql.NullInt64{Int64: requested, Valid: true}), fromNS(decided)
	return a.Checked(), err
}

// denyPendingOf answers a run's pending approvals with a denial, for a run
// that ended without its process answering them (it was interrupted).
func denyPendingOf(ctx context.Context, tx *sql.Tx, runID string, at int64, why string) error {
	rows, err := tx.QueryContext(ctx, "SELECT "+approvalColumns+" FROM approvals WHERE run_id = ? AND status = 'pending'", runID)
	if err != nil {
		return err
	}
	var pending []approval.Approval
	for rows.Next() {
		a, err := scanApproval(rows)
		if err != nil {
			rows.Close()
			return err
		}
		pending = append(pending, a)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, a := range pending {
		if err := writeDecision(ctx, tx, a.Decided(approval.Answer{By: "agentry", Note: why, At: fromNS(sql.NullInt64{Int64: at, Valid: true})})); err != nil {
			return err
		}
	}
	return nil
}
