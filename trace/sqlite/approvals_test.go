package sqlite

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/tracetest"
)

func TestAForgedApprovalDoesNotCount(t *testing.T) {
	tracetest.RunApprovalForgeryTests(t, func(t *testing.T) (approval.Store, func(string) error) {
		s, err := Open(filepath.Join(t.TempDir(), "traces.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s, func(id string) error {
			_, err := s.write.Exec("UPDATE approvals SET status = 'approved', decided_by = 'forger' WHERE id = ?", id)
			return err
		}
	})
}

// TestAnInterruptedRunLeavesNoApprovalPending: a run whose process died
// while a call waited would otherwise keep the call in every approvals
// list and badge forever.
func TestAnInterruptedRunLeavesNoApprovalPending(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "traces.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Date(2026, 11, 3, 14, 5, 9, 0, time.UTC)
	if err := s.Apply(t.Context(), []trace.Run{{ID: "gone", Agent: "a", Status: trace.StatusRunning, StartedAt: t0}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.RequestApproval(t.Context(), approval.Approval{ID: "ap", RunID: "gone", Tool: "shell.run", RequestedAt: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.write.Exec("UPDATE runs SET owner_pid = ? WHERE id = 'gone'", 1<<30); err != nil {
		t.Fatal(err)
	}
	if n, err := s.MarkInterrupted(t.Context()); n != 1 || err != nil {
		t.Fatalf("MarkInterrupted = %d, %v", n, err)
	}
	a, err := s.Approval(t.Context(), "ap")
	if err != nil || a.Status != approval.Denied || a.DecidedBy != "agentry" {
		t.Errorf("approval = %+v, %v", a, err)
	}
	if n, _ := s.PendingApprovals(t.Context()); n != 0 {
		t.Errorf("%d pending", n)
	}
}
