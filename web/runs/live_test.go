package runs

import (
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
)

func TestLiveRunsForgetRunsThatEnded(t *testing.T) {
	stop := make(chan struct{})
	l := newLiveRuns(stop)
	f := newFakeRunner(memory.New())
	a, err := l.start(f, RunRequest{Agent: "lead", Task: "a"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := l.start(f, RunRequest{Agent: "lead", Task: "b"})
	f.Exec(a).Finish(trace.StatusOK)
	waitGone(t, l, a)
	if !l.has(b) {
		t.Fatal("a run still going was forgotten")
	}
	close(stop) // the server stops: what is still going is Cancelled
	select {
	case <-f.Exec(b).Done():
	case <-time.After(5 * time.Second):
		t.Fatal("stopping the server did not cancel the run")
	}
	if !f.Exec(b).Cancelled.Load() {
		t.Error("the run ended but not as Cancelled")
	}
}
