package sqldb

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/internal/storekit"
)

var _ approval.Store = (*Tables)(nil)

const approvalColumns = `id, run_id, span_id, agent, tool, subject, arguments, reason, status,
    requested_at, decided_at, decided_by, for_run, note, secret, seal`

// RequestApproval records a pending approval; see approval.Store.
func (t *Tables) RequestApproval(ctx context.Context, a approval.Approval) error {
	if err := approval.Check(a); err != nil {
		return err
	}
	err := t.write(ctx, func(tx DB) error {
		_, err := tx.Exec(ctx, `INSERT INTO approvals (`+approvalColumns+`)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, NULL, '', ?, '', ?, '')`,
			a.ID, a.RunID, a.SpanID, a.Agent, a.Tool, a.Subject, a.Arguments, a.Reason, ToNS(a.RequestedAt), false, a.Secret)
		return err
	})
	if errors.Is(err, ErrUnique) {
		return fmt.Errorf("approval %q: %w", a.ID, approval.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("request approval %s: %w", a.ID, err)
	}
	return nil
}

// DecideApproval answers a pending approval; see approval.Store. The row
// is read and written in one write transaction, which on PostgreSQL locks
// the row and on SQLite holds the database's write lock, so of two
// processes answering at once exactly one wins and the other reads the
// winner's answer.
func (t *Tables) DecideApproval(ctx context.Context, id string, ans approval.Answer) (approval.Approval, error) {
	var out approval.Approval
	var decided bool
	ans.By, ans.Note = t.d.clean(ans.By), t.d.clean(ans.Note) // sealed as stored
	err := t.write(ctx, func(tx DB) error {
		a, err := scanApproval(tx.QueryRow(ctx, "SELECT "+approvalColumns+" FROM approvals WHERE id = ?"+t.d.ForUpdate, id))
		if err != nil || a.Status != approval.Pending {
			out, decided = a, false
			return err
		}
		out, decided = a.Decided(ans), true
		return writeDecision(ctx, tx, out)
	})
	switch {
	case errors.Is(err, ErrNoRows):
		return approval.Approval{}, fmt.Errorf("approval %q: %w", id, trace.ErrNotFound)
	case err != nil:
		return approval.Approval{}, fmt.Errorf("decide approval %q: %w", id, err)
	case !decided:
		return out, fmt.Errorf("approval %q: %w (%s by %s)", id, approval.ErrDecided, out.Status, out.DecidedBy)
	}
	return out, nil
}

// writeDecision stores a's decision and seal.
func writeDecision(ctx context.Context, tx DB, a approval.Approval) error {
	_, err := tx.Exec(ctx, `UPDATE approvals SET status = ?, decided_at = ?, decided_by = ?, for_run = ?, note = ?, seal = ?
WHERE id = ?`, string(a.Status), ToNS(a.DecidedAt), a.DecidedBy, a.ForRun, a.Note, a.Seal, a.ID)
	return err
}

// Approval returns one approval; see approval.Store.
func (t *Tables) Approval(ctx context.Context, id string) (approval.Approval, error) {
	a, err := scanApproval(t.read.QueryRow(ctx, "SELECT "+approvalColumns+" FROM approvals WHERE id = ?", id))
	if errors.Is(err, ErrNoRows) {
		return approval.Approval{}, fmt.Errorf("approval %q: %w", id, trace.ErrNotFound)
	}
	if err != nil {
		return approval.Approval{}, fmt.Errorf("approval %q: %w", id, err)
	}
	return a, nil
}

// Approvals lists approvals, pending first and oldest first, then answered
// ones newest first; see approval.Store.
func (t *Tables) Approvals(ctx context.Context, f approval.Filter) ([]approval.Approval, error) {
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
	out, err := t.approvals(ctx, t.read, q, append(args, storekit.PageLimit(f.Limit))...)
	if err != nil {
		return nil, fmt.Errorf("list approvals: %w", err)
	}
	return out, nil
}

func (t *Tables) approvals(ctx context.Context, db DB, q string, args ...any) ([]approval.Approval, error) {
	var out []approval.Approval
	rows, err := db.Query(ctx, q, args...)
	err = each(rows, err, func(rows Rows) error {
		a, err := scanApproval(rows)
		out = append(out, a)
		return err
	})
	return out, err
}

// PendingApprovals counts pending approvals; see approval.Store.
func (t *Tables) PendingApprovals(ctx context.Context) (int, error) {
	var n int
	if err := t.read.QueryRow(ctx, "SELECT count(*) FROM approvals WHERE status = 'pending'").Scan(&n); err != nil {
		return 0, fmt.Errorf("count pending approvals: %w", err)
	}
	return n, nil
}

// DenyPending answers a run's pending approvals with a denial, in tx, for
// a run that ended without its process answering them: the reapers call
// it when they mark a run interrupted, at its last recorded time.
func (t *Tables) DenyPending(ctx context.Context, tx DB, runID string, at int64, why string) error {
	pending, err := t.approvals(ctx, tx, "SELECT "+approvalColumns+" FROM approvals WHERE run_id = ? AND status = 'pending'"+t.d.ForUpdate, runID)
	if err != nil {
		return err
	}
	for _, a := range pending {
		if err := writeDecision(ctx, tx, a.Decided(approval.Answer{By: "agentry", Note: t.d.clean(why), At: FromNS(&at)})); err != nil {
			return err
		}
	}
	return nil
}

func scanApproval(row Row) (approval.Approval, error) {
	var a approval.Approval
	var status string
	var requested int64
	var decided *int64
	err := row.Scan(&a.ID, &a.RunID, &a.SpanID, &a.Agent, &a.Tool, &a.Subject, &a.Arguments, &a.Reason, &status,
		&requested, &decided, &a.DecidedBy, &a.ForRun, &a.Note, &a.Secret, &a.Seal)
	a.Status, a.RequestedAt, a.DecidedAt = approval.Status(status), FromNS(&requested), FromNS(decided)
	return a.Checked(), err
}
