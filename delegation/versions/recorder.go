package versions

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/diff"
	"github.com/agentry/agentry/trace"
)

// Recorder records file changes as versions in a trace.VersionStore. It is
// safe for concurrent use; Close it before closing the store.
type Recorder struct {
	store trace.VersionStore
	log   *slog.Logger
	now   func() time.Time // stamps each change when it is seen

	mu       sync.Mutex
	queue    []queued
	draining bool        // a drain is due or running
	timer    *time.Timer // the due drain, until it starts
	closed   bool        // Close was called: record synchronously
}

// batchAfter is how long a change waits before it is recorded, with the
// changes that follow it meanwhile. Starting the drain at once woke a
// thread while the save was still returning: on a busy machine the
// kernel ran the woken thread first and the save waited for it.
const batchAfter = 20 * time.Millisecond

// queued is a change waiting to be recorded, or (flushed != nil) a
// marker that a Flush waits on.
type queued struct {
	fc      registry.FileChanged
	at      time.Time
	flushed chan struct{}
}

// New returns a Recorder of store; log receives the changes that could not
// be recorded.
func New(store trace.VersionStore, log *slog.Logger) *Recorder {
	return &Recorder{store: store, log: log, now: time.Now}
}

// Hook is the Recorder as a registry.OnChange: fc is queued and recorded
// off the caller's path. A change that cannot be recorded is logged: the
// file is saved either way, and the next command that loads it records it.
func (r *Recorder) Hook(fc registry.FileChanged) {
	at := r.now()
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		r.recordLogged(queued{fc: fc, at: at})
		return
	}
	r.queue = append(r.queue, queued{fc: fc, at: at})
	if !r.draining {
		r.draining = true
		r.timer = time.AfterFunc(batchAfter, r.drain)
	}
	r.mu.Unlock()
}

// drain records the queue, a batch at a time, until it is empty.
func (r *Recorder) drain() {
	for {
		r.mu.Lock()
		r.timer = nil
		batch := r.queue
		r.queue = nil
		if len(batch) == 0 {
			r.draining = false
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
		for _, q := range batch {
			if q.flushed != nil {
				close(q.flushed)
				continue
			}
			r.recordLogged(q)
		}
	}
}

// recordLogged records q and logs what went wrong. It runs on the drain's
// goroutine, where a panic (a store driver's, a summary's) would end the
// whole serve process: it is logged like an error instead, and the next
// command's catch-up records the file.
func (r *Recorder) recordLogged(q queued) {
	defer func() {
		if v := recover(); v != nil {
			r.log.Error("version not recorded: panic", "kind", q.fc.Kind, "name", q.fc.Name, "path", q.fc.Path, "panic", v)
		}
	}()
	if err := r.record(context.Background(), q.fc, q.at); err != nil {
		r.log.Warn("version not recorded", "kind", q.fc.Kind, "name", q.fc.Name, "path", q.fc.Path, "err", err)
	}
}

// Flush waits until the changes queued before it are recorded, or ctx
// ends.
func (r *Recorder) Flush(ctx context.Context) error {
	r.mu.Lock()
	if !r.draining {
		r.mu.Unlock()
		return nil
	}
	done := make(chan struct{})
	r.queue = append(r.queue, queued{flushed: done})
	if r.timer != nil && r.timer.Stop() { // due later: start it now
		r.timer = nil
		go r.drain()
	}
	r.mu.Unlock()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close waits for the queue; changes reported after it are recorded
// before their hook returns.
func (r *Recorder) Close(ctx context.Context) error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	return r.Flush(ctx)
}

// Record records fc now, after the changes queued before it: the
// comparison a command makes when it loads a folder.
func (r *Recorder) Record(ctx context.Context, fc registry.FileChanged) error {
	if err := r.Flush(ctx); err != nil {
		return err
	}
	return r.record(ctx, fc, r.now())
}

// record adds fc as the newest version of its name, summarised against
// the version before it (trace.RecordVersion).
func (r *Recorder) record(ctx context.Context, fc registry.FileChanged, at time.Time) error {
	return trace.RecordVersion(ctx, r.store, versionOf(fc, at), diff.Summary)
}

// versionOf is a file change as the version it becomes, seen at at: its
// note is the start of the summary trace.RecordVersion writes.
func versionOf(fc registry.FileChanged, at time.Time) trace.Version {
	v := trace.Version{Kind: fc.Kind, Name: fc.Name, Path: fc.Path, Time: at, Source: string(fc.Source), Deleted: fc.Deleted, Summary: fc.Note}
	if !fc.Deleted {
		v.Hash, v.Content = registry.Hash(fc.Data), fc.Data
	}
	return v
}
