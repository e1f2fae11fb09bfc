package sqlite

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
)

// Checkpoints (copying the WAL's pages into the database file) run on a
// connection and goroutine of their own, so the writer does not do them.
// SQLite's automatic checkpoint runs in the connection that commits, after
// the commit: with the default of 1,000 pages, trace ingest checkpointed
// after nearly every batch, and the copying, reading the WAL back and two
// fsyncs per checkpoint were a fifth of the writer's time.
//
// The writer keeps an automatic checkpoint with a larger threshold
// (walBackstopPages) as a backstop: a checkpoint running beside a writer
// that never pauses can never copy the whole WAL, and SQLite only starts
// the WAL file over after a complete one. That one is quick, because the
// background checkpoints copied nearly all of it. Checkpoints do not change
// what a crash can lose: committed transactions are in the WAL either way.
const (
	// walBackstopPages is the writer's wal_autocheckpoint.
	walBackstopPages = 8192
	// checkpointEvery is how many written spans wake the checkpointer, about
	// 1,000 pages, SQLite's own automatic threshold.
	checkpointEvery = 4096
)

// checkpointer runs PASSIVE checkpoints on its own connection when kicked.
type checkpointer struct {
	db      *sql.DB
	written atomic.Int64 // spans written since the last kick
	kick    chan struct{}
	stop    chan struct{}
	stopped chan struct{}
	once    sync.Once
}

func startCheckpointer(db *sql.DB) *checkpointer {
	c := &checkpointer{db: db, kick: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
	go c.loop()
	return c
}

// wrote counts n spans committed and wakes the checkpointer once enough
// have been. It never waits.
func (c *checkpointer) wrote(n int) {
	if c.written.Add(int64(n)) < checkpointEvery {
		return
	}
	c.written.Store(0)
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *checkpointer) loop() {
	defer close(c.stopped)
	for {
		select {
		case <-c.kick:
			// An error (busy, say) is left alone: the next kick tries
			// again, and the writer's backstop bounds the WAL meanwhile.
			c.db.ExecContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)")
		case <-c.stop:
			return
		}
	}
}

// close stops the goroutine and closes the connection; closing again does
// nothing, as closing a Store twice did nothing before.
func (c *checkpointer) close() error {
	c.once.Do(func() { close(c.stop) })
	<-c.stopped
	return c.db.Close()
}
