package postgres

import (
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/postgres/pgtest"
)

// A store whose lock session is cut while its process lives (a database
// restart, a network cut) takes its key again, so its runs stop looking
// like a dead writer's.
func TestAStoreRetakesItsOwnerLockWhenItsSessionIsCut(t *testing.T) {
	defer func(d time.Duration) { ownerCheckEvery = d }(ownerCheckEvery)
	ownerCheckEvery = 20 * time.Millisecond
	url := pgtest.URL(t)
	s, err := Open(url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Apply(t.Context(), []trace.Run{{ID: "r", Agent: "a", Status: trace.StatusRunning}}, nil); err != nil {
		t.Fatal(err)
	}
	old := s.owner.sessionPID()
	if _, err := s.pool.Exec(t.Context(), "SELECT pg_terminate_backend($1)", old); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second) // bounds a broken check only
	for pid := old; pid == old || pid == 0; pid = s.owner.sessionPID() {
		if time.Now().After(deadline) {
			t.Fatal("the owner lock was not taken again")
		}
		time.Sleep(10 * time.Millisecond)
	}
	other, err := Open(url) // its Open reaps runs of dead writers
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if n, err := other.MarkInterrupted(t.Context()); err != nil || n != 0 {
		t.Errorf("MarkInterrupted = %d, %v; want the live store's run left alone", n, err)
	}
	if r, err := s.Run(t.Context(), "r"); err != nil || r.Status != trace.StatusRunning {
		t.Errorf("run = %s, %v; want it still running", r.Status, err)
	}
}
