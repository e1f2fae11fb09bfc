package tracetest

import (
	"errors"
	"sync"
	"testing"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
)

// OpenApprovalsFunc returns a fresh, empty approval store for one test; the
// opener closes it when the test ends.
type OpenApprovalsFunc func(t *testing.T) approval.Store

// RunApprovalTests is the conformance suite of approval.Store.
func RunApprovalTests(t *testing.T, open OpenApprovalsFunc) {
	runCases(t, []testCase[approval.Store]{
		{"a requested approval reads back pending", testApprovalRoundTrip},
		{"an approval without ids or with a used id is refused", testApprovalInvalid},
		{"the first answer wins and a second gets ErrDecided", testApprovalDecidedOnce},
		{"an unknown approval is not found", testApprovalNotFound},
		{"approvals list pending first, filtered by run and status", testApprovalList},
		{"concurrent answers to one approval leave exactly one winner", testApprovalRace},
	}, open)
}

func request(id, runID string, ms int) approval.Approval {
	return approval.Approval{ID: id, RunID: runID, SpanID: "s-" + id, Agent: "ops", Tool: "shell.run", Subject: "shell.run",
		Arguments: `{"command":"git push"}`, Reason: `needs approval for each call: agent "ops" ask pattern "shell.run"`,
		RequestedAt: at(ms), Secret: "secret-of-" + id}
}

func mustRequest(t *testing.T, s approval.Store, a approval.Approval) {
	t.Helper()
	if err := s.RequestApproval(ctx(t), a); err != nil {
		t.Fatalf("RequestApproval: %v", err)
	}
}

func testApprovalRoundTrip(t *testing.T, s approval.Store) {
	want := request("a1", "r1", 0)
	want.Status = approval.Denied // the store sets pending whatever it is given
	mustRequest(t, s, want)
	got, err := s.Approval(ctx(t), "a1")
	if err != nil {
		t.Fatal(err)
	}
	want.Status = approval.Pending
	if !got.RequestedAt.Equal(want.RequestedAt) || !got.DecidedAt.IsZero() {
		t.Errorf("times %v / %v, want %v / zero", got.RequestedAt, got.DecidedAt, want.RequestedAt)
	}
	got.RequestedAt, got.DecidedAt = want.RequestedAt, want.DecidedAt
	if got != want {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if n, err := s.PendingApprovals(ctx(t)); n != 1 || err != nil {
		t.Errorf("PendingApprovals = %d, %v; want 1", n, err)
	}
}

func testApprovalInvalid(t *testing.T, s approval.Store) {
	if err := s.RequestApproval(ctx(t), approval.Approval{ID: "x"}); !errors.Is(err, trace.ErrInvalid) {
		t.Errorf("no run id: %v, want ErrInvalid", err)
	}
	if err := s.RequestApproval(ctx(t), approval.Approval{RunID: "r"}); !errors.Is(err, trace.ErrInvalid) {
		t.Errorf("no id: %v, want ErrInvalid", err)
	}
	mustRequest(t, s, request("a1", "r1", 0))
	if err := s.RequestApproval(ctx(t), request("a1", "r2", 5)); !errors.Is(err, approval.ErrConflict) {
		t.Errorf("a used id: %v, want ErrConflict", err)
	}
}

func testApprovalDecidedOnce(t *testing.T, s approval.Store) {
	mustRequest(t, s, request("a1", "r1", 0))
	got, err := s.DecideApproval(ctx(t), "a1", approval.Answer{Approve: true, ForRun: true, By: "web", Note: "looks fine", At: at(900)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != approval.Approved || !got.ForRun || got.DecidedBy != "web" || got.Note != "looks fine" || !got.DecidedAt.Equal(at(900)) {
		t.Errorf("decided = %+v", got)
	}
	if req := request("a1", "r1", 0); !req.Confirms(got) {
		t.Errorf("the decision %+v does not carry the seal of the request's secret", got)
	}
	again, err := s.DecideApproval(ctx(t), "a1", approval.Answer{Approve: false, By: "cli", At: at(950)})
	if !errors.Is(err, approval.ErrDecided) || again.Status != approval.Approved || again.DecidedBy != "web" {
		t.Errorf("second answer = %+v, %v; want the first answer with ErrDecided", again, err)
	}
	read, _ := s.Approval(ctx(t), "a1")
	if read.Status != approval.Approved || read.DecidedBy != "web" || !read.ForRun {
		t.Errorf("stored = %+v", read)
	}
	if n, _ := s.PendingApprovals(ctx(t)); n != 0 {
		t.Errorf("PendingApprovals = %d after the answer, want 0", n)
	}
	// A denial never covers the rest of the run.
	mustRequest(t, s, request("a2", "r1", 10))
	denied, err := s.DecideApproval(ctx(t), "a2", approval.Answer{ForRun: true, By: "cli", Note: "no pushes today", At: at(20)})
	if err != nil || denied.Status != approval.Denied || denied.ForRun || denied.Note != "no pushes today" {
		t.Errorf("denial = %+v, %v", denied, err)
	}
}

func testApprovalNotFound(t *testing.T, s approval.Store) {
	if _, err := s.Approval(ctx(t), "nope"); !errors.Is(err, trace.ErrNotFound) {
		t.Errorf("Approval(nope) = %v", err)
	}
	if _, err := s.DecideApproval(ctx(t), "nope", approval.Answer{Approve: true, By: "web", At: at(0)}); !errors.Is(err, trace.ErrNotFound) {
		t.Errorf("DecideApproval(nope) = %v", err)
	}
}

func testApprovalList(t *testing.T, s approval.Store) {
	for i, id := range []string{"a1", "a2", "a3", "a4"} {
		run := "r1"
		if i == 3 {
			run = "r2"
		}
		mustRequest(t, s, request(id, run, i*10))
	}
	if _, err := s.DecideApproval(ctx(t), "a1", approval.Answer{Approve: true, By: "web", At: at(50)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DecideApproval(ctx(t), "a2", approval.Answer{By: "web", At: at(60)}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		f    approval.Filter
		want string
	}{
		{approval.Filter{}, "a3 a4 a2 a1"},
		{approval.Filter{Status: approval.Pending}, "a3 a4"},
		{approval.Filter{RunID: "r1"}, "a3 a2 a1"},
		{approval.Filter{RunID: "r1", Status: approval.Pending}, "a3"},
		{approval.Filter{Status: approval.Denied}, "a2"},
		{approval.Filter{Limit: 2}, "a3 a4"},
	}
	for _, tc := range cases {
		list, err := s.Approvals(ctx(t), tc.f)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for i, a := range list {
			if i > 0 {
				got += " "
			}
			got += a.ID
		}
		if got != tc.want {
			t.Errorf("Approvals(%+v) = %s, want %s", tc.f, got, tc.want)
		}
	}
}

func testApprovalRace(t *testing.T, s approval.Store) {
	mustRequest(t, s, request("a1", "r1", 0))
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for i := range 8 {
		wg.Go(func() {
			_, err := s.DecideApproval(ctx(t), "a1", approval.Answer{Approve: i%2 == 0, By: "racer", At: at(i)})
			if err == nil {
				mu.Lock()
				wins++
				mu.Unlock()
			} else if !errors.Is(err, approval.ErrDecided) {
				t.Errorf("answer %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if wins != 1 {
		t.Errorf("%d answers won, want exactly 1", wins)
	}
}

// OpenForgeableFunc returns a fresh approval store and forge, which
// writes a decision into approval id's row around the store, as a process
// that reached the database but is not agentry's would: status approved,
// decided by "forger", the seal left as it was.
type OpenForgeableFunc func(t *testing.T) (s approval.Store, forge func(id string) error)

// RunApprovalForgeryTests checks that a decision written around the store
// does not count (DESIGN §12): it reads as pending, a person's answer
// replaces it, and the waiting request confirms only that answer.
func RunApprovalForgeryTests(t *testing.T, open OpenForgeableFunc) {
	t.Run("a forged approval reads as pending and a real answer replaces it", func(t *testing.T) {
		s, forge := open(t)
		req := request("a1", "r1", 0)
		mustRequest(t, s, req)
		if err := forge("a1"); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Approval(ctx(t), "a1"); err != nil || got.Status != approval.Pending || req.Confirms(got) {
			t.Fatalf("after a forged approval: %+v, %v; want it read as pending", got, err)
		}
		got, err := s.DecideApproval(ctx(t), "a1", approval.Answer{By: "web", Note: "no", At: at(50)})
		if err != nil || got.Status != approval.Denied || got.DecidedBy != "web" || !req.Confirms(got) {
			t.Fatalf("a person's answer after the forgery = %+v, %v; want the denial, sealed", got, err)
		}
	})
	t.Run("a denial turned into an approval around the store does not count", func(t *testing.T) {
		s, forge := open(t)
		req := request("a2", "r1", 0)
		mustRequest(t, s, req)
		if _, err := s.DecideApproval(ctx(t), "a2", approval.Answer{By: "web", At: at(50)}); err != nil {
			t.Fatal(err)
		}
		if err := forge("a2"); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Approval(ctx(t), "a2"); err != nil || got.Status == approval.Approved || req.Confirms(got) {
			t.Fatalf("after flipping the denial: %+v, %v; want no approval", got, err)
		}
	})
}
