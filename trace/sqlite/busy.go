package sqlite

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"modernc.org/sqlite"
)

// Options tunes how a Store waits for other writers. Zero fields take the
// defaults shown.
type Options struct {
	// BusyTimeout is how long one statement waits for the write lock inside
	// SQLite before it fails with SQLITE_BUSY. Default 5s.
	BusyTimeout time.Duration
	// RetryFor bounds the time a write (and Open) keeps retrying, with
	// backoff, after SQLite answered busy or locked; after that the error
	// is returned wrapping ErrBusy. Default 30s.
	RetryFor time.Duration
}

func (o Options) withDefaults() Options {
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = 5 * time.Second
	}
	if o.RetryFor <= 0 {
		o.RetryFor = 30 * time.Second
	}
	return o
}

// ErrBusy is wrapped by a write that other writers kept out for longer than
// Options.RetryFor.
var ErrBusy = errors.New("trace database stayed busy (locked by other writers)")

// isBusy reports whether err is SQLite's busy or locked: another connection
// holds a lock, and the same work may succeed when tried again.
func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
		return true
	}
	return false
}

// retryBusy runs fn until it succeeds, fails for another reason than busy,
// ctx ends or o.RetryFor has passed. Waits grow from 5ms to 1s with jitter,
// so many processes queued on one file do not retry in step. Many writers
// on a loaded machine can keep one out past SQLite's own busy timeout, whose
// waiting is not fair; this loop is what keeps their traces from being lost.
func retryBusy(ctx context.Context, o Options, fn func() error) error {
	deadline := time.Now().Add(o.RetryFor)
	wait := 5 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil || !isBusy(err) {
			return err
		}
		if time.Now().Add(wait).After(deadline) {
			return fmt.Errorf("%w: gave up after %d attempts in %s: %w", ErrBusy, attempt, o.RetryFor, err)
		}
		t := time.NewTimer(wait/2 + rand.N(wait))
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, time.Second)
	}
}
