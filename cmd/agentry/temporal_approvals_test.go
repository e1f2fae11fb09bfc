//go:build linux

package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/sqlite"
)

// On Temporal the asking call waits in the worker, and `agentry run` on a
// terminal asks inline as in-process: "a" approves the call and every
// later call of the tool in the run (the second write asks nobody).
func TestRunOnTemporalAsksInlineOnATerminal(t *testing.T) {
	addr := temporaltest.Start(t, "agentry-cli")
	dir, agents, db, sc := askFixture(t)
	env := []string{"AGENTRY_WORKSPACE=" + dir, "AGENTRY_AGENTS=" + agents, "AGENTRY_DB=" + db, "AGENTRY_ENGINE=temporal",
		"AGENTRY_TEMPORAL__ADDRESS=" + addr, "AGENTRY_TEMPORAL__NAMESPACE=agentry-cli", "AGENTRY_TEMPORAL__TASK_QUEUE=cli"}
	ctx, cancel := context.WithCancel(context.Background())
	ws, _, werr := testSession(env...)
	worker := make(chan int)
	go func() { worker <- workerCommand(ctx, ws, nil) }()
	defer func() {
		cancel()
		if code := <-worker; code != 0 {
			t.Errorf("worker exit %d: %s", code, werr)
		}
	}()
	master, slave := openPTY(t)
	if _, err := master.Write([]byte("a\n")); err != nil {
		t.Fatal(err)
	}
	s, out, errOut := testSession(env...)
	s.stdin = slave
	if code := runCommand(ctx, s, []string{"writer", "go", "--model", "script:" + sc}); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if got := strings.Count(errOut.String(), "? writer wants to call filesystem.write_file"); got != 1 {
		t.Errorf("asked %d times, want 1:\n%s", got, errOut)
	}
	if !exists(filepath.Join(dir, "a.txt")) || !exists(filepath.Join(dir, "b.txt")) {
		t.Errorf("a.txt and b.txt not both written:\n%s", out)
	}
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	list, _ := store.Approvals(context.Background(), trace.ApprovalFilter{})
	if len(list) != 1 || list[0].Status != trace.ApprovalApproved || list[0].DecidedBy != "terminal" || !list[0].ForRun {
		t.Errorf("approvals %+v, want one approved for the run at the terminal", list)
	}
}
