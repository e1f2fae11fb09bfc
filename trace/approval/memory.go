package approval

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/agentry/agentry/trace"
)

// Memory is a Store held in process memory: what a process uses when no
// database keeps its approvals (they are answered in that process only),
// and the approvals of trace/memory. It passes the same suite as the
// database stores. Safe for concurrent use; the zero value is empty and
// ready.
type Memory struct {
	mu   sync.RWMutex
	rows map[string]Approval
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty Memory.
func NewMemory() *Memory { return &Memory{} }

// RequestApproval records a pending approval; see Store.
func (m *Memory) RequestApproval(ctx context.Context, a Approval) error {
	if err := Check(a); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rows == nil {
		m.rows = map[string]Approval{}
	}
	if _, ok := m.rows[a.ID]; ok {
		return fmt.Errorf("approval %q: %w", a.ID, ErrConflict)
	}
	a.Status, a.RequestedAt = Pending, a.RequestedAt.UTC()
	a.DecidedAt, a.DecidedBy, a.ForRun, a.Note, a.Seal = time.Time{}, "", false, "", ""
	m.rows[a.ID] = a
	return nil
}

// DecideApproval answers a pending approval; see Store.
func (m *Memory) DecideApproval(ctx context.Context, id string, ans Answer) (Approval, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.rows[id]
	if !ok {
		return Approval{}, fmt.Errorf("approval %q: %w", id, trace.ErrNotFound)
	}
	if a = a.Checked(); a.Status != Pending {
		return a, fmt.Errorf("approval %q: %w (%s by %s)", id, ErrDecided, a.Status, a.DecidedBy)
	}
	a = a.Decided(ans)
	m.rows[id] = a
	return a, nil
}

// Approval returns one approval; see Store.
func (m *Memory) Approval(ctx context.Context, id string) (Approval, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	a, ok := m.rows[id]
	if !ok {
		return Approval{}, fmt.Errorf("approval %q: %w", id, trace.ErrNotFound)
	}
	return a.Checked(), nil
}

// Approvals lists approvals; see Store.
func (m *Memory) Approvals(ctx context.Context, f Filter) ([]Approval, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []Approval
	for _, a := range m.rows {
		if a = a.Checked(); (f.RunID == "" || a.RunID == f.RunID) && (f.Status == "" || a.Status == f.Status) {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b Approval) int {
		if a.Status == Pending && b.Status == Pending {
			return cmp.Or(a.RequestedAt.Compare(b.RequestedAt), cmp.Compare(a.ID, b.ID))
		}
		if (a.Status == Pending) != (b.Status == Pending) {
			if a.Status == Pending {
				return -1
			}
			return 1
		}
		return cmp.Or(b.RequestedAt.Compare(a.RequestedAt), cmp.Compare(b.ID, a.ID))
	})
	limit := f.Limit
	if limit <= 0 {
		limit = trace.DefaultLimit
	}
	return out[:min(len(out), limit, trace.MaxLimit)], nil
}

// PendingApprovals counts pending approvals; see Store.
func (m *Memory) PendingApprovals(ctx context.Context) (int, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	n := 0
	for _, a := range m.rows {
		if a.Status == Pending {
			n++
		}
	}
	return n, nil
}
