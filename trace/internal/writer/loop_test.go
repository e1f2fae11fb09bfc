package writer_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry/agentry/trace/internal/writer"
)

// never is an interval no test waits for.
const never = time.Hour

func TestKickWritesBeforeTheInterval(t *testing.T) {
	wrote := make(chan struct{}, 1)
	l := writer.Start(writer.Config{Interval: never, Write: func() error { wrote <- struct{}{}; return nil }, Final: func() {}})
	defer l.Close(context.Background())
	l.Kick()
	<-wrote
}

func TestKickNeverBlocksNorAllocates(t *testing.T) {
	release := make(chan struct{})
	l := writer.Start(writer.Config{Interval: never, Write: func() error { <-release; return nil }, Final: func() {}})
	defer l.Close(context.Background())
	defer close(release)
	// The loop takes at most one kick and blocks in Write; every further
	// kick finds the channel full and must return at once.
	if n := testing.AllocsPerRun(100, l.Kick); n != 0 {
		t.Errorf("Kick allocates %v times, want 0", n)
	}
}

func TestTickRunsAtTheInterval(t *testing.T) {
	ticked := make(chan struct{}, 1)
	l := writer.Start(writer.Config{
		Interval: time.Millisecond,
		Tick: func() {
			select {
			case ticked <- struct{}{}:
			default:
			}
		},
		Write: func() error { t.Error("Write ran without a kick or a flush"); return nil },
		Final: func() {},
	})
	defer l.Close(context.Background())
	<-ticked
	<-ticked
}

func TestTickWithoutTickWrites(t *testing.T) {
	wrote := make(chan struct{}, 1)
	l := writer.Start(writer.Config{Interval: time.Millisecond, Write: func() error {
		select {
		case wrote <- struct{}{}:
		default:
		}
		return nil
	}, Final: func() {}})
	defer l.Close(context.Background())
	<-wrote
}

func TestFlushReturnsTheWritesError(t *testing.T) {
	boom := errors.New("boom")
	var writes atomic.Int32
	l := writer.Start(writer.Config{Interval: never, Write: func() error { writes.Add(1); return boom }, Final: func() {}})
	defer l.Close(context.Background())
	if err := l.Flush(context.Background()); err != boom {
		t.Fatalf("Flush = %v, want %v", err, boom)
	}
	if n := writes.Load(); n != 1 {
		t.Errorf("%d writes, want 1", n)
	}
}

func TestFlushWhenCtxEndsSaysWhatItWasDoing(t *testing.T) {
	t.Run("before the loop takes the flush", func(t *testing.T) {
		release := make(chan struct{})
		l := writer.Start(writer.Config{Interval: never, FlushWhat: "flush things", Write: func() error { <-release; return nil }, Final: func() {}})
		defer l.Close(context.Background())
		defer close(release)
		l.Kick() // the loop is now busy writing
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := l.Flush(ctx)
		if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "flush things: ") {
			t.Fatalf("Flush = %v, want flush things: context canceled", err)
		}
	})
	t.Run("while the write runs", func(t *testing.T) {
		started, release := make(chan struct{}), make(chan struct{})
		l := writer.Start(writer.Config{Interval: never, FlushWhat: "flush things", Write: func() error {
			close(started)
			<-release
			return nil
		}, Final: func() {}})
		defer l.Close(context.Background())
		defer close(release)
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-started; cancel() }()
		err := l.Flush(ctx)
		if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "flush things: ") {
			t.Fatalf("Flush = %v, want flush things: context canceled", err)
		}
	})
}

func TestCloseRunsFinalOnceAndStops(t *testing.T) {
	var finals atomic.Int32
	l := writer.Start(writer.Config{Interval: never, Write: func() error { return nil }, Final: func() { finals.Add(1) }})
	for range 2 {
		if err := l.Close(context.Background()); err != nil {
			t.Fatalf("Close = %v", err)
		}
	}
	if n := finals.Load(); n != 1 {
		t.Errorf("Final ran %d times, want 1", n)
	}
	if err := l.Flush(context.Background()); err != writer.ErrStopped {
		t.Errorf("Flush after Close = %v, want ErrStopped", err)
	}
	l.Kick() // after the loop exited: still never blocks
}

func TestCloseReturnsCtxErrorWhileFinalRuns(t *testing.T) {
	release, finished := make(chan struct{}), make(chan struct{})
	l := writer.Start(writer.Config{Interval: never, Write: func() error { return nil }, Final: func() {
		<-release
		close(finished)
	}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Close(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Close = %v, want context.Canceled", err)
	}
	close(release) // Final goes on after Close gave up waiting
	<-finished
	if err := l.Close(context.Background()); err != nil {
		t.Fatalf("second Close = %v", err)
	}
}

func TestCloseWithoutFinalWrites(t *testing.T) {
	var writes atomic.Int32
	l := writer.Start(writer.Config{Interval: never, Write: func() error { writes.Add(1); return nil }})
	if err := l.Close(context.Background()); err != nil {
		t.Fatalf("Close = %v", err)
	}
	if n := writes.Load(); n != 1 {
		t.Errorf("%d writes at Close, want 1", n)
	}
}
