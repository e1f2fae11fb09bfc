package trace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/agentry/agentry/trace/internal/writer"
)

// Applier is the part of a Store a Recorder writes to.
type Applier interface {
	Apply(ctx context.Context, runs []Run, spans []Span) error
}

// RecorderConfig tunes a Recorder. Zero fields take the defaults shown.
type RecorderConfig struct {
	// Interval between flushes; what a crash can lose. Default 50ms.
	Interval time.Duration
	// BatchSize of pending records that triggers a flush before the
	// interval ends, and the most spans written in one Apply. Default 16384.
	BatchSize int
	// MaxPending bounds the records held in memory between flushes. Default
	// 200,000. A span's records while it is open, and its end, update its
	// pending record and never count against it.
	MaxPending int
	// MaxWait is how long a Record call waits for room when MaxPending is
	// reached before the record is dropped (and counted). Default 1s.
	MaxWait time.Duration
	// Logger receives write errors and drops. Default slog.Default().
	Logger *slog.Logger
}

// ErrDropped is kept by a Recorder that had to drop records because its store
// fell too far behind.
var ErrDropped = errors.New("trace records dropped: store too slow")

// ErrLost is returned by Close when the final write failed: the records
// still pending then were never written.
var ErrLost = errors.New("trace records lost: the store could not write them")

// closeAttempts is how often Close tries the final write, within
// closeRetryFor. The store retries busy writes itself (trace/sqlite for up
// to 30s); these attempts cover stores that fail fast on a transient error.
const (
	closeAttempts = 3
	closeRetryFor = 30 * time.Second
)

// Recorder is a Sink that keeps the latest state of each run and span in
// memory and writes them to a store in batches from one goroutine, so the
// agents never wait on disk.
//
// Back-pressure: when MaxPending new records wait to be written, Record calls
// block for at most MaxWait for the writer to catch up, then drop the record
// and count it (Dropped, Err); until the writer takes its next batch, further
// new records are dropped without waiting. Agents therefore slow down when
// the store is slow and keep going when it is stuck, with memory bounded
// either way. A record that updates an open span's pending record is never
// dropped.
// A batch the store fails to write is kept and retried with the next one;
// the error is logged and kept for Err until a write succeeds. Nothing is
// lost silently: Close returns an error, and Dropped counts the records,
// whenever a record never reached the store.
type Recorder struct {
	store  Applier
	cfg    RecorderConfig
	writer *writer.Loop

	mu    sync.Mutex
	runs  map[string]Run
	spans *spanQueue
	// open holds the spans not yet ended: where their latest record is in
	// spans, or -1 when it went with an earlier batch. Only open spans are
	// looked up when a record arrives: an index of every pending span, as
	// big as the backlog (up to MaxPending), missed the CPU's cache on
	// nearly every record, and open spans are the few running at once. A
	// span recorded again after its end is added again, and the writer
	// drops the repeat (spanQueue.dedupe) off the agents' path.
	open    map[spanKey]int
	room    chan struct{} // closed when the writer takes a batch
	stalled bool          // a wait for room timed out; no more waits until a batch is taken
	closed  bool
	dropped int64 // records lost: dropped for room, rejected, or unwritten at Close
	lost    error // why records were lost; sticks once set
	err     error // the last write's error, until a write succeeds
}

type spanKey struct{ run, span string }

var _ Sink = (*Recorder)(nil)

// NewRecorder starts a Recorder writing to store. Close it to write what is
// pending and stop its goroutine; the store stays open.
func NewRecorder(store Applier, cfg RecorderConfig) *Recorder {
	cfg = cfg.withDefaults()
	r := &Recorder{
		store: store, cfg: cfg,
		runs:  map[string]Run{},
		spans: newSpanQueue(cfg.BatchSize, 0),
		open:  map[spanKey]int{},
		room:  make(chan struct{}),
	}
	r.writer = writer.Start(writer.Config{
		Interval: cfg.Interval, Write: r.write, Final: r.final, FlushWhat: "flush traces",
	})
	return r
}

func (c RecorderConfig) withDefaults() RecorderConfig {
	if c.Interval <= 0 {
		c.Interval = 50 * time.Millisecond
	}
	if c.BatchSize <= 0 {
		c.BatchSize = 16384
	}
	if c.MaxPending <= 0 {
		c.MaxPending = 200_000
	}
	if c.MaxWait <= 0 {
		c.MaxWait = time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// RecordRun keeps r as the run's latest state; it is written with the next
// batch. Secrets in its error are redacted first (Redact).
func (r *Recorder) RecordRun(run Run) {
	if run.ID == "" {
		r.cfg.Logger.Warn("trace: run without id ignored")
		return
	}
	run.Error = Redact(run.Error)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.runs[run.ID]; !ok && !r.makeRoom() {
		return
	}
	r.runs[run.ID] = run
	r.nudge()
}

// RecordSpan keeps s as the span's latest state; it is written with the
// next batch. Secrets in its errors are redacted first (Redact).
func (r *Recorder) RecordSpan(s Span) {
	if s.ID == "" || s.RunID == "" {
		r.cfg.Logger.Warn("trace: span without id ignored", "span", s.ID, "run", s.RunID)
		return
	}
	redactSpan(&s)
	k := spanKey{s.RunID, s.ID}
	ended := !s.EndedAt.IsZero()
	r.mu.Lock()
	defer r.mu.Unlock()
	i, open := r.open[k]
	if open && i >= 0 {
		*r.spans.at(i) = s
		if ended {
			delete(r.open, k)
		}
		return
	}
	if !r.makeRoom() {
		return
	}
	i = r.spans.add(s)
	if !ended {
		r.open[k] = i
	} else if open {
		delete(r.open, k) // its earlier records went with an earlier batch
	}
	r.nudge()
}

// makeRoom waits, with r.mu held on entry and exit, until a new record fits.
// It reports false when the record must be dropped.
func (r *Recorder) makeRoom() bool {
	if r.closed {
		r.dropped++
		return false
	}
	var deadline time.Time // read only when the record has to wait: most never do
	for r.pending() >= r.cfg.MaxPending {
		if deadline.IsZero() {
			deadline = time.Now().Add(r.cfg.MaxWait)
		}
		wait := time.Until(deadline)
		if wait <= 0 || r.stalled {
			r.stalled = true
			r.dropped++
			r.lost = ErrDropped
			r.cfg.Logger.Error("trace: record dropped, store too slow", "dropped", r.dropped)
			return false
		}
		room := r.room
		r.writer.Kick()
		r.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-room:
		case <-t.C:
		}
		t.Stop()
		r.mu.Lock()
	}
	return true
}

func (r *Recorder) pending() int { return len(r.runs) + r.spans.len() }

// nudge wakes the writer early once a batch is full.
func (r *Recorder) nudge() {
	if r.pending() >= r.cfg.BatchSize {
		r.writer.Kick()
	}
}

// Flush writes everything recorded before the call and returns the error of
// that write, if any.
func (r *Recorder) Flush(ctx context.Context) error {
	err := r.writer.Flush(ctx)
	if err == writer.ErrStopped {
		return r.Err()
	}
	return err
}

// Close writes what is pending, stops the writer and returns Err: nil only
// when every record reached the store. A final write that keeps failing is
// tried up to closeAttempts times within closeRetryFor, then what it held
// is counted in Dropped and reported with ErrLost. Records that arrive
// after Close are dropped.
func (r *Recorder) Close(ctx context.Context) error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	if err := r.writer.Close(ctx); err != nil {
		return fmt.Errorf("close trace recorder: %w", err)
	}
	return r.Err()
}

// Err returns why records were lost (wrapping ErrDropped, ErrInvalid or
// ErrLost), else the error of a failed batch still waiting to be retried,
// else nil.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lost != nil {
		return r.lost
	}
	return r.err
}

// Dropped returns how many records were lost: dropped for want of room,
// rejected by the store as invalid, or still unwritten when Close gave up.
func (r *Recorder) Dropped() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// final writes what is pending at Close, trying again after a failure, and
// counts whatever it could not write as lost.
func (r *Recorder) final() {
	var err error
	start := time.Now()
	for attempt := 1; ; attempt++ {
		if err = r.write(); err == nil || errors.Is(err, ErrInvalid) {
			return
		}
		if attempt == closeAttempts || time.Since(start) >= closeRetryFor {
			break
		}
		time.Sleep(time.Duration(attempt) * 100 * time.Millisecond)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.pending()
	r.dropped += int64(n)
	r.lost = fmt.Errorf("%w (%d at close): %w", ErrLost, n, err)
	r.cfg.Logger.Error("trace: records lost at close", "records", n, "err", err)
}

// write takes every pending record and applies them, at most BatchSize
// spans per Apply: a store that fell behind finds far more than that
// pending, and one transaction for all of it kept SQLite from checkpointing
// alongside its writer (trace/sqlite's checkpoint.go). On failure what was
// not written goes back, under any newer state recorded meanwhile, unless
// the store called it invalid: retrying that could never succeed.
func (r *Recorder) write() error {
	r.mu.Lock()
	runs, spans := r.runs, r.spans
	if len(runs)+spans.len() == 0 {
		r.mu.Unlock()
		return nil
	}
	// The next batch is likely the size of this one: presizing spares the
	// Record calls from growing the queue and map step by step.
	r.runs, r.spans = make(map[string]Run, len(runs)), newSpanQueue(r.cfg.BatchSize, spans.len())
	for k := range r.open {
		r.open[k] = -1
	}
	close(r.room)
	r.room, r.stalled = make(chan struct{}), false
	r.mu.Unlock()

	spans.dedupe() // PostgreSQL refuses an upsert that touches a row twice
	runs, chunks, err := r.apply(runs, spans.batches())
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		r.err = nil // a failed batch, requeued, went out with this one
		return nil
	}
	unwritten := 0
	for _, c := range chunks {
		unwritten += len(c)
	}
	err = fmt.Errorf("write traces: %w", err)
	r.err = err
	if errors.Is(err, ErrInvalid) {
		r.lost = err
		r.dropped += int64(len(runs) + unwritten)
		r.cfg.Logger.Error("trace: batch rejected, dropped", "err", err, "runs", len(runs), "spans", unwritten)
		return err
	}
	r.cfg.Logger.Error("trace: write failed, will retry", "err", err, "runs", len(runs), "spans", unwritten)
	r.requeue(runs, chunks)
	return err
}

// apply writes runs with the first chunk of spans and each further chunk
// in an Apply of its own. On failure it returns what was not written.
func (r *Recorder) apply(runs map[string]Run, chunks [][]Span) (map[string]Run, [][]Span, error) {
	runList := make([]Run, 0, len(runs))
	for _, run := range runs {
		runList = append(runList, run)
	}
	for first := true; first || len(chunks) > 0; first = false {
		var chunk []Span
		if len(chunks) > 0 {
			chunk = chunks[0]
		}
		if err := r.store.Apply(context.Background(), runList, chunk); err != nil {
			return runs, chunks, err
		}
		runs, runList = nil, nil
		if len(chunks) > 0 {
			chunks = chunks[1:]
		}
	}
	return nil, nil, nil
}

// requeue puts a failed batch back in front of what was recorded since,
// each span once, at its first place, in its newest state.
func (r *Recorder) requeue(runs map[string]Run, failed [][]Span) {
	for id, run := range runs {
		if _, newer := r.runs[id]; !newer {
			r.runs[id] = run
		}
	}
	all := newSpanQueue(r.cfg.BatchSize, 0)
	for _, chunks := range [][][]Span{failed, r.spans.chunks} {
		for _, c := range chunks {
			for _, s := range c {
				all.add(s)
			}
		}
	}
	index := all.dedupe()
	r.spans = all
	for k := range r.open {
		if i, ok := index[k]; ok {
			r.open[k] = i
		} else {
			r.open[k] = -1
		}
	}
}
