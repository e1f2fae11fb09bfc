package core_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
	"github.com/agentry/agentry/web/core"
)

// exec is a run that ends when a test finishes it or it is cancelled.
type exec struct {
	id        string
	done      chan struct{}
	once      sync.Once
	cancelled bool
}

func newExec(id string) *exec { return &exec{id: id, done: make(chan struct{})} }

func (e *exec) RunID() string         { return e.id }
func (e *exec) Done() <-chan struct{} { return e.done }
func (e *exec) Cancel()               { e.once.Do(func() { e.cancelled = true; close(e.done) }) }
func (e *exec) finish()               { e.once.Do(func() { close(e.done) }) }

func TestLiveForgetsRunsThatEndedAndCancelsTheRestOnStop(t *testing.T) {
	stop := make(chan struct{})
	l := core.NewLive(stop)
	a, b := newExec("a"), newExec("b")
	for _, e := range []*exec{a, b} {
		if _, err := l.Start(core.RunnerFunc(func(context.Context, core.RunRequest) (core.Execution, error) { return e, nil }), core.RunRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	a.finish()
	waitGone(t, l, "a")
	if !l.Has("b") {
		t.Fatal("a run still going was forgotten")
	}
	close(stop) // the server stops: what is still going is cancelled
	select {
	case <-b.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("stopping the server did not cancel the run")
	}
	if !b.cancelled {
		t.Error("the run ended but not as cancelled")
	}
}

func TestCancelRunSaysWhyARunItDoesNotHoldCannotBeCancelled(t *testing.T) {
	store := memory.New()
	ctx := context.Background()
	now := time.Now()
	runs := []trace.Run{
		{ID: "ended", Agent: "x", Status: trace.StatusOK, StartedAt: now, EndedAt: now},
		{ID: "elsewhere", Agent: "x", Status: trace.StatusRunning, StartedAt: now},
	}
	if err := store.Apply(ctx, runs, nil); err != nil {
		t.Fatal(err)
	}
	l := core.NewLive(make(chan struct{}))
	for id, want := range map[string]string{"ended": "already ended", "elsewhere": "another agentry process"} {
		err := l.CancelRun(ctx, store, nil, id)
		var he *echo.HTTPError
		if !errors.As(err, &he) || he.Code != http.StatusConflict {
			t.Fatalf("%s: got %v, want a 409", id, err)
		}
		if msg := he.Message.(string); !strings.Contains(msg, want) {
			t.Errorf("%s: %q does not say %q", id, msg, want)
		}
	}
	if err := l.CancelRun(ctx, store, nil, "missing"); core.StatusOf(err) != http.StatusNotFound || core.MessageOf(err, http.StatusNotFound, "") != "There is no run “missing”." {
		t.Errorf("an unknown run: got %v, want a 404 saying there is no such run", err)
	}
}

// waitGone waits until l forgot run id (its Done was observed).
func waitGone(t *testing.T, l *core.Live, id string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for l.Has(id) {
		if time.Now().After(deadline) {
			t.Fatal("the server still holds a run that ended")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// endedUnseen is a run that has ended, as every reader of Done sees, except
// Launch's goroutine, which has not been scheduled yet: its first Done call
// gets a channel that never closes. It models the moment between a run's
// end and its removal from Live.
type endedUnseen struct {
	id      string
	calls   int
	mu      sync.Mutex
	pending chan struct{}
	ended   chan struct{}
	cancels int
}

func (e *endedUnseen) RunID() string { return e.id }
func (e *endedUnseen) Cancel()       { e.mu.Lock(); e.cancels++; e.mu.Unlock() }
func (e *endedUnseen) Done() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls++
	if e.calls == 1 {
		return e.pending
	}
	return e.ended
}

// A run that ended is not going, even before Live forgets it: a second
// Cancel reads the store and says it already ended (it answered 303, as if
// it had cancelled something, when it came in between).
func TestLiveDoesNotCancelARunThatHasEnded(t *testing.T) {
	l := core.NewLive(make(chan struct{}))
	e := &endedUnseen{id: "r", pending: make(chan struct{}), ended: make(chan struct{})}
	close(e.ended)
	if _, err := l.Start(core.RunnerFunc(func(context.Context, core.RunRequest) (core.Execution, error) { return e, nil }), core.RunRequest{}); err != nil {
		t.Fatal(err)
	}
	// Launch's goroutine took the first Done; wait until it has.
	for deadline := time.Now().Add(5 * time.Second); ; {
		e.mu.Lock()
		n := e.calls
		e.mu.Unlock()
		if n >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Launch never waited on Done")
		}
		time.Sleep(time.Millisecond)
	}
	if l.Cancel("r") || l.Has("r") {
		t.Error("a run that has ended is reported as going")
	}
	if e.cancels != 0 {
		t.Errorf("an ended run was cancelled %d times", e.cancels)
	}
}
