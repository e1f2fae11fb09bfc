package trace

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"
)

var _ ApprovalStore = (*Memory)(nil)

// RequestApproval records a pending approval; see ApprovalStore.
func (m *Memory) RequestApproval(ctx context.Context, a Approval) error {
	if err := CheckApproval(a); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	if m.approvals == nil {
		m.approvals = map[string]Approval{}
	}
	if _, ok := m.approvals[a.ID]; ok {
		return fmt.Errorf("approval %q: %w", a.ID, ErrConflict)
	}
	a.Status, a.RequestedAt = ApprovalPending, a.RequestedAt.UTC()
	a.DecidedAt, a.DecidedBy, a.ForRun, a.Note, a.Seal = time.Time{}, "", false, "", ""
	m.approvals[a.ID] = a
	return nil
}

// DecideApproval answers a pending approval; see ApprovalStore.
func (m *Memory) DecideApproval(ctx context.Context, id string, ans Answer) (Approval, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return Approval{}, ErrClosed
	}
	a, ok := m.approvals[id]
	if !ok {
		return Approval{}, fmt.Errorf("approval %q: %w", id, ErrNotFound)
	}
	if a = a.Checked(); a.Status != ApprovalPending {
		return a, fmt.Errorf("approval %q: %w (%s by %s)", id, ErrDecided, a.Status, a.DecidedBy)
	}
	a = a.Decided(ans)
	m.approvals[id] = a
	return a, nil
}

// Approval returns one approval; see ApprovalStore.
func (m *Memory) Approval(ctx context.Context, id string) (Approval, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return Approval{}, ErrClosed
	}
	a, ok := m.approvals[id]
	if !ok {
		return Approval{}, fmt.Errorf("approval %q: %w", id, ErrNotFound)
	}
	return a.Checked(), nil
}

// Approvals lists approvals; see ApprovalStore.
func (m *Memory) Approvals(ctx context.Context, f ApprovalFilter) ([]Approval, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	var out []Approval
	for _, a := range m.approvals {
		if a = a.Checked(); (f.RunID == "" || a.RunID == f.RunID) && (f.Status == "" || a.Status == f.Status) {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b Approval) int {
		if a.Status == ApprovalPending && b.Status == ApprovalPending {
			return cmp.Or(a.RequestedAt.Compare(b.RequestedAt), cmp.Compare(a.ID, b.ID))
		}
		if (a.Status == ApprovalPending) != (b.Status == ApprovalPending) {
			if a.Status == ApprovalPending {
				return -1
			}
			return 1
		}
		return cmp.Or(b.RequestedAt.Compare(a.RequestedAt), cmp.Compare(b.ID, a.ID))
	})
	return out[:min(len(out), pageLimit(f.Limit))], nil
}

// PendingApprovals counts pending approvals; see ApprovalStore.
func (m *Memory) PendingApprovals(ctx context.Context) (int, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return 0, ErrClosed
	}
	n := 0
	for _, a := range m.approvals {
		if a.Status == ApprovalPending {
			n++
		}
	}
	return n, nil
}
