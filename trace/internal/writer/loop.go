package writer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrStopped is returned by Flush once the loop has exited: Close has run
// the last write and nothing will be written any more.
var ErrStopped = errors.New("writer stopped")

// Config says what a Loop does. Write is required.
type Config struct {
	// Interval between ticks; it must be positive.
	Interval time.Duration
	// Tick runs at each interval; nil means Write.
	Tick func()
	// Write writes what is pending: on a Kick, on a tick without Tick, and
	// for Flush, which returns its error.
	Write func() error
	// Final runs once, at Close, as the loop's last work; nil means Write.
	Final func()
	// FlushWhat is what Flush says it was doing when its ctx ends, as in
	// "flush traces: context deadline exceeded".
	FlushWhat string
}

// Loop is a running writer goroutine. Its methods are safe for concurrent use.
type Loop struct {
	cfg   Config
	kick  chan struct{}
	flush chan chan error
	done  chan struct{}
	exit  chan struct{}
	stop  sync.Once
}

// Start starts the goroutine that runs cfg's functions; Close stops it.
func Start(cfg Config) *Loop {
	write := cfg.Write
	if cfg.Tick == nil {
		cfg.Tick = func() { _ = write() }
	}
	if cfg.Final == nil {
		cfg.Final = func() { _ = write() }
	}
	l := &Loop{
		cfg:   cfg,
		kick:  make(chan struct{}, 1),
		flush: make(chan chan error),
		done:  make(chan struct{}),
		exit:  make(chan struct{}),
	}
	go l.run()
	return l
}

// Kick wakes the loop to write before the interval ends, typically because
// a batch is full. It never blocks: a Kick while one is already waiting is
// the same Kick.
func (l *Loop) Kick() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// Flush has the loop write now, which takes everything recorded before the
// call, and returns that write's error. It returns ErrStopped at once when
// the loop has exited, and ctx's error, wrapped in FlushWhat, when ctx ends
// first.
func (l *Loop) Flush(ctx context.Context) error {
	reply := make(chan error, 1)
	select {
	case l.flush <- reply:
	case <-l.exit:
		return ErrStopped
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", l.cfg.FlushWhat, ctx.Err())
	}
	select {
	case err := <-reply:
		return err
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", l.cfg.FlushWhat, ctx.Err())
	}
}

// Close has the loop run Final and exit, and waits for that; it returns
// ctx's error when ctx ends first, the loop then finishing on its own.
// Calling it again only waits.
func (l *Loop) Close(ctx context.Context) error {
	l.stop.Do(func() { close(l.done) })
	select {
	case <-l.exit:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l *Loop) run() {
	defer close(l.exit)
	tick := time.NewTicker(l.cfg.Interval)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			l.cfg.Tick()
		case <-l.kick:
			_ = l.cfg.Write()
		case reply := <-l.flush:
			reply <- l.cfg.Write()
		case <-l.done:
			l.cfg.Final()
			return
		}
	}
}
