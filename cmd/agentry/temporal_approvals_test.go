//go:build linux

package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/agentry/agentry/cmd/agentry/answer"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	"github.com/agentry/agentry/trace/approval"
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
	workerUntilTheEnd(t, env)
	ctx := t.Context()
	master, slave := openPTY(t)
	if _, err := master.Write([]byte("a\n")); err != nil {
		t.Fatal(err)
	}
	s, out, errOut := testSession(env...)
	s.stdin = slave
	if code := s.main(ctx, []string{"run", "writer", "go", "--model", "script:" + sc}); code != 0 {
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
	list, _ := store.Approvals(context.Background(), approval.Filter{})
	if len(list) != 1 || list[0].Status != approval.Approved || list[0].DecidedBy != "terminal" || !list[0].ForRun {
		t.Errorf("approvals %+v, want one approved for the run at the terminal", list)
	}
}

// serve's approvals pages answer through temporalAnswers: with engine:
// temporal the answer also signals the waiting approval workflow (its
// history shows the signal); an answer in the store alone does not, and
// the run still ends when its poll reads it.
func TestAWebAnswerSignalsTheRunOnTemporal(t *testing.T) {
	addr := temporaltest.Start(t, "agentry-web")
	dir, agents, db, sc := askFixture(t)
	env := []string{"AGENTRY_WORKSPACE=" + dir, "AGENTRY_AGENTS=" + agents, "AGENTRY_DB=" + db, "AGENTRY_ENGINE=temporal",
		"AGENTRY_TEMPORAL__ADDRESS=" + addr, "AGENTRY_TEMPORAL__NAMESPACE=agentry-web", "AGENTRY_TEMPORAL__TASK_QUEUE=web"}
	tc := temporal.Config{Address: addr, Namespace: "agentry-web", TaskQueue: "web"}
	workerUntilTheEnd(t, env)
	ctx := t.Context()
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	c, err := client.Dial(client.Options{HostPort: addr, Namespace: "agentry-web"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, signal := range []bool{true, false} {
		s, out, errOut := testSession(env...)
		done := make(chan int)
		go func() { done <- s.main(ctx, []string{"run", "writer", "go", "--model", "script:" + sc}) }()
		answers, closeAnswers := answer.Signal(tc, store, slog.New(slog.DiscardHandler))
		if !signal {
			answers = store
		}
		var asked []string
		for deadline := time.Now().Add(time.Minute); len(asked) < 2 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			list, _ := store.Approvals(ctx, approval.Filter{Status: approval.Pending})
			for _, a := range list {
				// Answered before its workflow waits, a row is read at the
				// workflow's first look, and answered just before a poll,
				// at that poll: no signal reaches it either way. So answer
				// once it waits on its second poll (2 s long), which leaves
				// the answer and its signal that long to arrive.
				if signal && timersStarted(ctx, c, temporal.ApprovalWorkflowID(a.RunID, a.ID)) < 3 {
					continue
				}
				if _, err := c.DescribeWorkflowExecution(ctx, temporal.ApprovalWorkflowID(a.RunID, a.ID), ""); err != nil {
					continue
				}
				if _, err := answers.DecideApproval(ctx, a.ID, approval.Answer{Approve: true, By: "web", At: time.Now()}); err != nil {
					t.Fatal(err)
				}
				asked = append(asked, temporal.ApprovalWorkflowID(a.RunID, a.ID))
			}
			select {
			case code := <-done:
				if code != 0 {
					t.Fatalf("signal=%v: exit %d\n%s%s", signal, code, out, errOut)
				}
				done = nil
			default:
			}
			if done == nil {
				break
			}
		}
		if done != nil {
			if code := <-done; code != 0 {
				t.Fatalf("signal=%v: exit %d\n%s%s", signal, code, out, errOut)
			}
		}
		closeAnswers()
		if len(asked) != 2 {
			t.Fatalf("signal=%v: %d approvals answered, want 2 (one per write)", signal, len(asked))
		}
		for _, id := range asked {
			signalled := false
			it := c.GetWorkflowHistory(ctx, id, "", false, 0)
			for it.HasNext() {
				ev, err := it.Next()
				if err != nil {
					t.Fatal(err)
				}
				signalled = signalled || ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
			}
			if signalled != signal {
				t.Errorf("approval workflow %s signalled %v, want %v", id, signalled, signal)
			}
		}
		os.Remove(filepath.Join(dir, "a.txt"))
		os.Remove(filepath.Join(dir, "b.txt"))
	}
}

// timersStarted counts the timers the workflow started: its timeout's,
// then one per poll.
func timersStarted(ctx context.Context, c client.Client, id string) int {
	n := 0
	it := c.GetWorkflowHistory(ctx, id, "", false, 0)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return n
		}
		if ev.GetEventType() == enumspb.EVENT_TYPE_TIMER_STARTED {
			n++
		}
	}
	return n
}

// workerUntilTheEnd runs `agentry worker` with env in this process until
// the test ends, and fails the test if it then exits with an error.
func workerUntilTheEnd(t *testing.T, env []string) {
	ctx, cancel := context.WithCancel(context.Background())
	ws, _, werr := testSession(env...)
	worker := make(chan int)
	go func() { worker <- ws.main(ctx, []string{"worker"}) }()
	t.Cleanup(func() {
		cancel()
		if code := <-worker; code != 0 {
			t.Errorf("worker exit %d: %s", code, werr)
		}
	})
}
