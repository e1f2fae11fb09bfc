package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/sqlite"
)

// holdWriteLock takes the database's write lock from another connection, as
// another process's long batch would, and returns the function that lets go.
func holdWriteLock(t *testing.T, path string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("UPDATE counters SET value = value WHERE name = 'span_seq'"); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() { once.Do(func() { tx.Rollback(); db.Close() }) }
	t.Cleanup(release)
	return release
}

func openWith(t *testing.T, path string, o sqlite.Options) *sqlite.Store {
	t.Helper()
	s, err := sqlite.OpenWith(path, o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestWriteWaitsOutAnotherWriterPastTheBusyTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "traces.db")
	s := openWith(t, path, sqlite.Options{BusyTimeout: 10 * time.Millisecond, RetryFor: time.Minute})
	release := holdWriteLock(t, path)
	// Let go well after SQLite's own timeout has failed the first attempts.
	time.AfterFunc(300*time.Millisecond, release)
	run := trace.Run{ID: "r1", Agent: "a", Status: trace.StatusOK, StartedAt: tracetestBase}
	span := trace.Span{ID: "s1", RunID: "r1", Status: trace.StatusOK, StartedAt: tracetestBase}
	if err := s.Apply(t.Context(), []trace.Run{run}, []trace.Span{span}); err != nil {
		t.Fatalf("Apply under a held lock: %v", err)
	}
	got, err := s.Spans(t.Context(), "r1")
	if err != nil || len(got) != 1 {
		t.Fatalf("Spans = %d, %v; want the one span", len(got), err)
	}
}

func TestWriteGivesUpWithErrBusyWhenTheLockIsNeverReleased(t *testing.T) {
	path := filepath.Join(t.TempDir(), "traces.db")
	s := openWith(t, path, sqlite.Options{BusyTimeout: 10 * time.Millisecond, RetryFor: 100 * time.Millisecond})
	holdWriteLock(t, path)
	err := s.Apply(t.Context(), []trace.Run{{ID: "r1", StartedAt: tracetestBase}}, nil)
	if !errors.Is(err, sqlite.ErrBusy) {
		t.Fatalf("Apply = %v, want ErrBusy", err)
	}
	t.Logf("error shown: %v", err)
}

func TestWriteRetryStopsWhenTheContextEnds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "traces.db")
	s := openWith(t, path, sqlite.Options{BusyTimeout: 10 * time.Millisecond, RetryFor: time.Hour})
	holdWriteLock(t, path)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	err := s.Apply(ctx, []trace.Run{{ID: "r1", StartedAt: tracetestBase}}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Apply = %v, want context.Canceled", err)
	}
}

// Many processes that start on a database nobody created yet all get it:
// creation is one transaction, and what another opener sees mid-creation is
// never taken for a foreign file.
func TestConcurrentFirstOpensAllSucceed(t *testing.T) {
	const rounds, openers = 15, 8
	for round := range rounds {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("new-%d.db", round))
		var wg sync.WaitGroup
		errs := make(chan error, openers)
		for range openers {
			wg.Go(func() {
				s, err := sqlite.Open(path)
				if err != nil {
					errs <- err
					return
				}
				errs <- s.Apply(context.Background(), []trace.Run{{ID: trace.NewRunID(), StartedAt: tracetestBase}}, nil)
				s.Close()
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}
