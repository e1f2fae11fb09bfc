package postgres_test

import (
	neturl "net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/conversation"
	"github.com/agentry/agentry/trace/postgres"
	"github.com/agentry/agentry/trace/postgres/pgtest"
	"github.com/agentry/agentry/trace/tracetest"
)

func open(t testing.TB, url string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(url)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

func TestConformance(t *testing.T) {
	tracetest.RunStoreTests(t, func(t *testing.T) trace.Store { return open(t, pgtest.URL(t)) })
}

func TestApprovalConformance(t *testing.T) {
	tracetest.RunApprovalTests(t, func(t *testing.T) approval.Store {
		s := open(t, pgtest.URL(t))
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestAForgedApprovalDoesNotCount(t *testing.T) {
	tracetest.RunApprovalForgeryTests(t, func(t *testing.T) (approval.Store, func(string) error) {
		url := pgtest.URL(t)
		s := open(t, url)
		t.Cleanup(func() { s.Close() })
		return s, func(id string) error {
			conn, err := pgx.Connect(t.Context(), url) // the same schema, around the store
			if err != nil {
				return err
			}
			defer conn.Close(t.Context())
			_, err = conn.Exec(t.Context(), "UPDATE approvals SET status = 'approved', decided_by = 'forger' WHERE id = $1", id)
			return err
		}
	})
}

func TestConversationConformance(t *testing.T) {
	tracetest.RunConversationTests(t, func(t *testing.T) conversation.Store {
		s := open(t, pgtest.URL(t))
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// The writer that leaves runs behind is another store on the same schema,
// closed: its session, and with it its owner lock, is gone, as when its
// process is killed on any host.
func TestReaperConformance(t *testing.T) {
	tracetest.RunReaperTests(t, func(t *testing.T) (trace.Store, func([]trace.Run, []trace.Span)) {
		url := pgtest.URL(t)
		s := open(t, url)
		leave := func(runs []trace.Run, spans []trace.Span) {
			other := open(t, url)
			if err := other.Apply(t.Context(), runs, spans); err != nil {
				t.Fatal(err)
			}
			if err := other.Close(); err != nil {
				t.Fatal(err)
			}
		}
		return s, leave
	})
}

func TestConcurrentFirstOpensAllSucceed(t *testing.T) {
	url := pgtest.URL(t)
	var wg sync.WaitGroup
	stores := make([]*postgres.Store, 8)
	errs := make([]error, 8)
	for i := range stores {
		wg.Go(func() { stores[i], errs[i] = postgres.Open(url) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("open %d: %v", i, err)
			continue
		}
		defer stores[i].Close()
	}
	if t.Failed() {
		return
	}
	// Every store works on the one schema they made together.
	for i, s := range stores {
		if err := s.Apply(t.Context(), []trace.Run{{ID: trace.NewRunID(), Agent: "a", Status: trace.StatusOK}}, nil); err != nil {
			t.Errorf("store %d: %v", i, err)
		}
	}
	if page, err := stores[0].Runs(t.Context(), trace.RunFilter{}); err != nil || len(page.Runs) != 8 {
		t.Errorf("Runs = %d, %v; want 8", len(page.Runs), err)
	}
}

// A run whose process died while a call waited would otherwise keep the
// call in every approvals list and badge forever; the reaper denies it.
func TestAnInterruptedRunLeavesNoApprovalPending(t *testing.T) {
	url := pgtest.URL(t)
	s := open(t, url)
	defer s.Close()
	gone := open(t, url)
	t0 := time.Date(2026, 11, 3, 14, 5, 9, 0, time.UTC)
	if err := gone.Apply(t.Context(), []trace.Run{{ID: "gone", Agent: "a", Status: trace.StatusRunning, StartedAt: t0}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"ap", "answered"} {
		if err := gone.RequestApproval(t.Context(), approval.Approval{ID: id, RunID: "gone", Tool: "shell.run", RequestedAt: t0}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.DecideApproval(t.Context(), "answered", approval.Answer{Approve: true, By: "web", At: t0}); err != nil {
		t.Fatal(err)
	}
	gone.Close()
	if n, err := s.MarkInterrupted(t.Context()); n != 1 || err != nil {
		t.Fatalf("MarkInterrupted = %d, %v", n, err)
	}
	a, err := s.Approval(t.Context(), "ap")
	if err != nil || a.Status != approval.Denied || a.DecidedBy != "agentry" || !a.DecidedAt.Equal(t0) || !strings.Contains(a.Note, "interrupted") {
		t.Errorf("approval = %+v, %v; want denied by agentry when the run was interrupted", a, err)
	}
	if a, _ := s.Approval(t.Context(), "answered"); a.Status != approval.Approved {
		t.Errorf("the answered approval became %s", a.Status)
	}
	if n, _ := s.PendingApprovals(t.Context()); n != 0 {
		t.Errorf("%d pending", n)
	}
}

// A failed Open names the database but never shows the password, which a
// URL carries in plain text. The URL names a database that does not exist
// as well as a wrong password, so Open fails whether or not the server
// checks passwords.
func TestOpenErrorsNeverShowThePassword(t *testing.T) {
	const secret = "wr0ng-Passw0rd-4-test"
	u, err := neturl.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = neturl.UserPassword(u.User.Username(), secret)
	u.Path = "/agentry_no_such_database"
	_, err = postgres.Open(u.String())
	if err == nil {
		t.Fatal("Open of a database that does not exist, with a wrong password, succeeded")
	}
	if strings.Contains(err.Error(), secret) {
		t.Fatalf("error shows the password: %v", err)
	}
	if !strings.Contains(err.Error(), "open trace db postgres://") {
		t.Errorf("error %q does not say which database", err)
	}
}

// In a database whose ctype is C, lower() folds ASCII only; the text
// filter folds beyond ASCII there too (the suite checks Ü and Σ).
func TestConformanceInACLocaleDatabase(t *testing.T) {
	url := pgtest.CLocaleDatabase(t)
	tracetest.RunStoreTests(t, func(t *testing.T) trace.Store { return open(t, url(t)) })
}

func TestPingAnswersWhileTheDatabaseDoes(t *testing.T) {
	s := open(t, pgtest.URL(t))
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	s.Close()
	if err := s.Ping(t.Context()); err == nil {
		t.Fatal("Ping on a closed store = nil")
	}
}

func TestVersionConformance(t *testing.T) {
	tracetest.RunVersionTests(t, func(t *testing.T) trace.Store { return open(t, pgtest.URL(t)) })
}
