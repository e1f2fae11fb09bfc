package sched

import (
	"context"
	"sync"
)

// FIFO is a counting semaphore for goroutines whose waiters are served in
// arrival order, so calls over a cap wait their turn instead of being
// rejected or overtaken. A nil *FIFO never blocks. Safe for concurrent use.
type FIFO struct {
	size    int // slots in all
	mu      sync.Mutex
	free    int
	waiters []chan struct{}
}

// NewFIFO returns a FIFO of n slots; nil (no cap) when n is 0 or less.
func NewFIFO(n int) *FIFO {
	if n <= 0 {
		return nil
	}
	return &FIFO{size: n, free: n}
}

// Size is the number of slots.
func (f *FIFO) Size() int {
	if f == nil {
		return 0
	}
	return f.size
}

// Acquire takes a slot, waiting in line until one is free or ctx ends. An
// ended ctx always wins: no slot is taken under it, even a free one.
func (f *FIFO) Acquire(ctx context.Context) error { return f.AcquireNoting(ctx, nil) }

// AcquireNoting is Acquire that, when no slot is free, calls queued (if not
// nil) once it has joined the line and before it waits.
func (f *FIFO) AcquireNoting(ctx context.Context, queued func()) error {
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
			f.Release()
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
		f.Release() // granted while giving up: pass it on
		return context.Cause(ctx)
	}
}

// Release frees a slot, handing it to the longest waiter.
func (f *FIFO) Release() {
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
