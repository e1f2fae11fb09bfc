package delegation

import (
	"context"
	"errors"
	"sync"

	"github.com/agentry/agentry/trace"
)

// fifo is a counting semaphore whose waiters are served in arrival order, so
// calls over a cap wait their turn instead of being rejected or overtaken.
// A nil *fifo never blocks.
type fifo struct {
	size    int // slots in all
	mu      sync.Mutex
	free    int
	waiters []chan struct{}
}

func newFIFO(n int) *fifo {
	if n <= 0 {
		return nil
	}
	return &fifo{size: n, free: n}
}

// acquire takes a slot, waiting in line until one is free or ctx ends. An
// ended ctx always wins: no slot is taken under it, even a free one.
func (f *fifo) acquire(ctx context.Context) error { return f.acquireNoting(ctx, nil) }

// acquireNoting is acquire that, when no slot is free, calls queued (if not
// nil) once it has joined the line and before it waits.
func (f *fifo) acquireNoting(ctx context.Context, queued func()) error {
	if f == nil {
		return nil
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	f.mu.Lock()
	if f.free > 0 && len(f.waiters) == 0 {
		f.free--
		f.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	f.waiters = append(f.waiters, ch)
	f.mu.Unlock()
	if queued != nil {
		queued()
	}
	select {
	case <-ch:
		if ctx.Err() != nil { // granted as the context ended: nothing starts after that
			f.release()
			return context.Cause(ctx)
		}
		return nil
	case <-ctx.Done():
		f.mu.Lock()
		for i, w := range f.waiters {
			if w == ch {
				f.waiters = append(f.waiters[:i], f.waiters[i+1:]...)
				f.mu.Unlock()
				return context.Cause(ctx)
			}
		}
		f.mu.Unlock()
		f.release() // granted while giving up: pass it on
		return context.Cause(ctx)
	}
}

// release frees a slot, handing it to the longest waiter.
func (f *fifo) release() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.waiters) > 0 {
		ch := f.waiters[0]
		f.waiters = f.waiters[1:]
		close(ch)
		return
	}
	f.free++
}

// outcome is how an invocation or a delegation ended.
type outcome struct {
	status trace.Status
	result string
	err    string
	skills []string // the skills the invocation loaded (skills_invoke.go)
}

// failed classifies err from work done under ctx: timeouts and cancellation
// come from the context's cause, anything else is an error.
func failed(ctx context.Context, err error) outcome {
	if ctx.Err() != nil {
		cause := context.Cause(ctx)
		switch {
		case errors.Is(cause, ErrRunTimeout), errors.Is(cause, ErrAgentTimeout), errors.Is(cause, ErrToolTimeout), errors.Is(cause, context.DeadlineExceeded):
			return outcome{status: trace.StatusTimeout, err: cause.Error()}
		case errors.Is(cause, ErrTokenBudget):
			return outcome{status: trace.StatusError, err: cause.Error()}
		default:
			return outcome{status: trace.StatusCancelled, err: cause.Error()}
		}
	}
	if errors.Is(err, ErrBudget) {
		return outcome{status: trace.StatusLimit, err: err.Error()}
	}
	return outcome{status: trace.StatusError, err: err.Error()}
}
