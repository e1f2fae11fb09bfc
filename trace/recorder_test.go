package trace_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
)

// fakeStore is a hand-written Applier that records batches, can fail the
// next calls, and can hold a write until released.
type fakeStore struct {
	mu      sync.Mutex
	batches [][]trace.Span
	runs    []trace.Run
	fail    []error       // errors returned by the next calls, in order (nil: succeed)
	entered chan struct{} // signalled when Apply starts, if set
	gate    chan struct{} // Apply waits for it, if set
}

func (f *fakeStore) Apply(ctx context.Context, runs []trace.Run, spans []trace.Span) error {
	if f.entered != nil {
		f.entered <- struct{}{}
	}
	if f.gate != nil {
		<-f.gate
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.fail) > 0 {
		err := f.fail[0]
		f.fail = f.fail[1:]
		if err != nil {
			return err
		}
	}
	f.batches = append(f.batches, spans)
	f.runs = append(f.runs, runs...)
	return nil
}

// written returns the last written state of each span, by ID.
func (f *fakeStore) written() map[string]trace.Span {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]trace.Span{}
	for _, b := range f.batches {
		for _, s := range b {
			out[s.ID] = s
		}
	}
	return out
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// slowConfig never flushes on its own, so tests decide when writes happen.
func slowConfig() trace.RecorderConfig {
	return trace.RecorderConfig{Interval: time.Hour, BatchSize: 1 << 20, Logger: quiet}
}

func sp(id string, st trace.Status) trace.Span {
	return trace.Span{ID: id, RunID: "r", Status: st}
}

func TestRecorderCoalescesToTheLatestState(t *testing.T) {
	f := &fakeStore{}
	rec := trace.NewRecorder(f, slowConfig())
	defer rec.Close(t.Context())
	rec.RecordRun(trace.Run{ID: "r", Status: trace.StatusRunning})
	rec.RecordSpan(sp("a", trace.StatusRunning))
	rec.RecordSpan(sp("b", trace.StatusRunning))
	rec.RecordSpan(sp("a", trace.StatusOK))
	rec.RecordRun(trace.Run{ID: "r", Status: trace.StatusOK})
	if err := rec.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(f.batches) != 1 || len(f.batches[0]) != 2 {
		t.Fatalf("batches %v, want one batch of two spans", f.batches)
	}
	if got := f.batches[0]; got[0].ID != "a" || got[0].Status != trace.StatusOK || got[1].ID != "b" {
		t.Errorf("batch %+v; want a (ok) then b, in first-recorded order", got)
	}
	if len(f.runs) != 1 || f.runs[0].Status != trace.StatusOK {
		t.Errorf("runs written %+v, want the run once, ok", f.runs)
	}
}

func TestRecorderFlushesOnItsOwn(t *testing.T) {
	cases := []struct {
		name string
		cfg  trace.RecorderConfig
	}{
		{"after the interval", trace.RecorderConfig{Interval: 5 * time.Millisecond, Logger: quiet}},
		{"when a batch is full", trace.RecorderConfig{Interval: time.Hour, BatchSize: 2, Logger: quiet}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeStore{entered: make(chan struct{}, 10)}
			rec := trace.NewRecorder(f, c.cfg)
			defer rec.Close(t.Context())
			rec.RecordSpan(sp("a", trace.StatusOK))
			rec.RecordSpan(sp("b", trace.StatusOK))
			select {
			case <-f.entered:
			case <-time.After(10 * time.Second):
				t.Fatal("no write happened without Flush")
			}
		})
	}
}

func TestRecorderRetriesAFailedWriteUnderNewerState(t *testing.T) {
	f := &fakeStore{fail: []error{errors.New("disk I/O error")}}
	rec := trace.NewRecorder(f, slowConfig())
	defer rec.Close(t.Context())
	rec.RecordSpan(sp("a", trace.StatusRunning))
	rec.RecordSpan(sp("b", trace.StatusRunning))
	if err := rec.Flush(t.Context()); err == nil {
		t.Fatal("Flush hid the write error")
	}
	rec.RecordSpan(sp("b", trace.StatusOK))
	if err := rec.Flush(t.Context()); err != nil {
		t.Fatalf("retry: %v", err)
	}
	w := f.written()
	if w["a"].Status != trace.StatusRunning || w["b"].Status != trace.StatusOK {
		t.Errorf("written %+v; want a from the failed batch and b's newer state", w)
	}
	if err := rec.Err(); err != nil {
		t.Errorf("Err = %v after the retry wrote everything; want nil", err)
	}
}

// A backlog (the store was slower than the agents) goes out BatchSize spans
// per Apply, the runs with the first, each span in its latest state; a
// failed one is retried from where it failed, and nothing is written twice.
func TestRecorderWritesABacklogInBatchSizeApplies(t *testing.T) {
	for _, c := range []struct {
		name string
		fail []error
	}{{"all succeed", nil}, {"the second fails", []error{nil, errors.New("disk I/O error")}}} {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeStore{fail: c.fail, entered: make(chan struct{}, 10), gate: make(chan struct{})}
			rec := trace.NewRecorder(f, trace.RecorderConfig{Interval: time.Hour, BatchSize: 2, Logger: quiet})
			defer rec.Close(t.Context())
			rec.RecordRun(trace.Run{ID: "r"})
			rec.RecordSpan(sp("a", trace.StatusOK)) // two pending: the writer takes them and waits
			<-f.entered
			for _, id := range []string{"b", "c", "d", "e", "f"} {
				rec.RecordSpan(sp(id, trace.StatusOK))
			}
			rec.RecordSpan(sp("e", trace.StatusError)) // an update in a later batch
			close(f.gate)
			rec.Flush(t.Context())
			if err := rec.Flush(t.Context()); err != nil {
				t.Fatalf("Flush: %v", err)
			}
			if len(f.runs) != 1 || len(f.written()) != 6 || rec.Dropped() != 0 || rec.Err() != nil {
				t.Errorf("runs %v, written %v, dropped %d, err %v; want the run once and a to f", f.runs, f.written(), rec.Dropped(), rec.Err())
			}
			if e := f.written()["e"]; e.Status != trace.StatusError {
				t.Errorf("e written as %q, want its newer state (error)", e.Status)
			}
			total := 0
			for _, b := range f.batches {
				if len(b) > 2 {
					t.Errorf("a batch of %d spans, want at most BatchSize (2)", len(b))
				}
				total += len(b)
			}
			if total != 6 {
				t.Errorf("%d spans written in %d batches, want each of the 6 once", total, len(f.batches))
			}
		})
	}
}

func TestRecorderDropsABatchTheStoreCallsInvalid(t *testing.T) {
	f := &fakeStore{fail: []error{fmt.Errorf("apply: %w", trace.ErrInvalid)}}
	rec := trace.NewRecorder(f, slowConfig())
	defer rec.Close(t.Context())
	rec.RecordSpan(sp("a", trace.StatusOK))
	rec.Flush(t.Context())
	if err := rec.Flush(t.Context()); err != nil {
		t.Fatalf("second Flush: %v", err)
	}
	if len(f.written()) != 0 || rec.Dropped() != 1 || !errors.Is(rec.Err(), trace.ErrInvalid) {
		t.Errorf("written %v dropped %d err %v; want nothing written, 1 dropped, ErrInvalid", f.written(), rec.Dropped(), rec.Err())
	}
}

func TestRecorderIgnoresRecordsWithoutIDs(t *testing.T) {
	f := &fakeStore{}
	rec := trace.NewRecorder(f, slowConfig())
	defer rec.Close(t.Context())
	rec.RecordSpan(trace.Span{ID: "no-run"})
	rec.RecordRun(trace.Run{})
	rec.Flush(t.Context())
	if len(f.batches) != 0 || len(f.runs) != 0 {
		t.Errorf("wrote %v %v", f.batches, f.runs)
	}
}

func TestRecorderBoundsMemoryWhenTheStoreIsStuck(t *testing.T) {
	f := &fakeStore{entered: make(chan struct{}, 10), gate: make(chan struct{})}
	cfg := trace.RecorderConfig{Interval: time.Hour, BatchSize: 1, MaxPending: 2, MaxWait: 20 * time.Millisecond, Logger: quiet}
	rec := trace.NewRecorder(f, cfg)
	rec.RecordSpan(sp("a", trace.StatusOK)) // the writer takes it and hangs
	<-f.entered
	rec.RecordSpan(sp("b", trace.StatusRunning))
	rec.RecordSpan(sp("c", trace.StatusOK))
	rec.RecordSpan(sp("d", trace.StatusOK)) // no room: waits MaxWait, dropped
	rec.RecordSpan(sp("b", trace.StatusOK)) // an update needs no room
	if rec.Dropped() != 1 || !errors.Is(rec.Err(), trace.ErrDropped) {
		t.Errorf("dropped %d err %v; want 2 and ErrDropped", rec.Dropped(), rec.Err())
	}
	close(f.gate)
	if err := rec.Close(t.Context()); !errors.Is(err, trace.ErrDropped) {
		t.Errorf("Close = %v, want ErrDropped reported", err)
	}
	w := f.written()
	if _, ok := w["d"]; ok || w["e"].ID != "" || w["b"].Status != trace.StatusOK || w["c"].ID == "" || w["a"].ID == "" {
		t.Errorf("written %v; want a, b (ok), c and not d or e", w)
	}
}

func TestRecorderCloseWritesWhatIsPendingAndDropsLaterRecords(t *testing.T) {
	m := memory.New()
	rec := trace.NewRecorder(m, slowConfig())
	rec.RecordRun(trace.Run{ID: "r", Status: trace.StatusOK})
	rec.RecordSpan(sp("a", trace.StatusOK))
	if err := rec.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	rec.RecordSpan(sp("late", trace.StatusOK))
	spans, _ := m.Spans(t.Context(), "r")
	if len(spans) != 1 || spans[0].ID != "a" {
		t.Errorf("store holds %v, want only a", spans)
	}
	if err := rec.Flush(t.Context()); err != nil {
		t.Errorf("Flush after Close = %v", err)
	}
}

func TestRecorderTakesRecordsFromManyGoroutines(t *testing.T) {
	m := memory.New()
	rec := trace.NewRecorder(m, trace.RecorderConfig{Interval: time.Millisecond, BatchSize: 16, Logger: quiet})
	const goroutines, each = 8, 200
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				s := trace.Span{ID: fmt.Sprintf("%d-%d", g, i), RunID: "r", Status: trace.StatusRunning}
				rec.RecordSpan(s)
				s.Status = trace.StatusOK
				rec.RecordSpan(s)
			}
		})
	}
	wg.Wait()
	if err := rec.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	spans, _ := m.Spans(t.Context(), "r")
	if len(spans) != goroutines*each {
		t.Fatalf("%d spans stored, want %d", len(spans), goroutines*each)
	}
	for _, s := range spans {
		if s.Status != trace.StatusOK {
			t.Fatalf("span %s stored as %s, want its last state ok", s.ID, s.Status)
		}
	}
}

func TestRecorderCloseRetriesAFailedFinalWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStore{fail: []error{errors.New("database is locked")}}
		rec := trace.NewRecorder(f, slowConfig())
		rec.RecordSpan(sp("a", trace.StatusOK))
		if err := rec.Close(t.Context()); err != nil {
			t.Fatalf("Close = %v, want the second attempt to write", err)
		}
		if w := f.written(); len(w) != 1 || rec.Dropped() != 0 {
			t.Errorf("written %v, dropped %d; want a written, none dropped", w, rec.Dropped())
		}
	})
}

func TestRecorderCloseReportsRecordsItCouldNotWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		down := errors.New("database is locked")
		f := &fakeStore{fail: []error{down, down, down, down, down}}
		rec := trace.NewRecorder(f, slowConfig())
		rec.RecordRun(trace.Run{ID: "r", Status: trace.StatusOK})
		rec.RecordSpan(sp("a", trace.StatusOK))
		rec.RecordSpan(sp("b", trace.StatusOK))
		err := rec.Close(t.Context())
		if !errors.Is(err, trace.ErrLost) || !errors.Is(err, down) {
			t.Fatalf("Close = %v, want ErrLost with the store's error", err)
		}
		if rec.Dropped() != 3 {
			t.Errorf("Dropped = %d, want the run and two spans", rec.Dropped())
		}
		t.Logf("error shown: %v", err)
	})
}

// onceEach fails t if a batch holds two records of one span: PostgreSQL
// refuses an upsert that touches a row twice.
func (f *fakeStore) onceEach(t *testing.T) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, b := range f.batches {
		seen := map[string]bool{}
		for _, s := range b {
			if seen[s.ID] {
				t.Errorf("batch %d holds %s twice: %+v", i, s.ID, b)
			}
			seen[s.ID] = true
		}
	}
}

func ended(id string, st trace.Status) trace.Span {
	s := sp(id, st)
	s.EndedAt = time.Unix(1, 0)
	return s
}

// A span is written once per batch in its latest state, however its
// records fall: started in one batch and ended in the next, updated while
// running on both sides of a write, recorded again after its end, or
// recorded only once.
func TestRecorderWritesEachSpanOncePerBatch(t *testing.T) {
	f := &fakeStore{}
	rec := trace.NewRecorder(f, slowConfig())
	defer rec.Close(t.Context())
	flush := func() {
		t.Helper()
		if err := rec.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	rec.RecordSpan(sp("long", trace.StatusRunning))
	rec.RecordSpan(sp("short", trace.StatusRunning))
	rec.RecordSpan(ended("short", trace.StatusOK))
	flush()
	rec.RecordSpan(sp("long", trace.StatusRunning)) // an event while running
	rec.RecordSpan(sp("long", trace.StatusRunning))
	rec.RecordSpan(ended("long", trace.StatusOK))
	rec.RecordSpan(ended("late", trace.StatusOK)) // recorded only once
	rec.RecordSpan(ended("short", trace.StatusError))
	rec.RecordSpan(ended("short", trace.StatusCancelled)) // again after its end
	flush()
	f.onceEach(t)
	if len(f.batches) != 2 || len(f.batches[1]) != 3 {
		t.Fatalf("batches %v; want 2, the second with long, late and short", f.batches)
	}
	w := f.written()
	if w["long"].Status != trace.StatusOK || w["short"].Status != trace.StatusCancelled || w["late"].Status != trace.StatusOK {
		t.Errorf("written %+v; want each span's latest state", w)
	}
	if got := f.batches[1][0].ID; got != "long" {
		t.Errorf("second batch starts with %s; want long, recorded first", got)
	}
}

// A failed batch comes back once per span, merged with what was recorded
// since, and a span still running keeps coalescing into that one record.
func TestRecorderMergesARetriedBatchWithWhatCameSince(t *testing.T) {
	f := &fakeStore{fail: []error{errors.New("disk I/O error")}}
	rec := trace.NewRecorder(f, slowConfig())
	defer rec.Close(t.Context())
	rec.RecordSpan(sp("a", trace.StatusRunning))
	rec.RecordSpan(sp("b", trace.StatusRunning))
	if err := rec.Flush(t.Context()); err == nil {
		t.Fatal("Flush hid the write error")
	}
	rec.RecordSpan(ended("a", trace.StatusOK)) // its start went with the failed batch
	rec.RecordSpan(sp("b", trace.StatusRunning))
	rec.RecordSpan(ended("b", trace.StatusError))
	if err := rec.Flush(t.Context()); err != nil {
		t.Fatalf("retry: %v", err)
	}
	f.onceEach(t)
	w := f.written()
	if len(f.batches) != 1 || w["a"].Status != trace.StatusOK || w["b"].Status != trace.StatusError {
		t.Errorf("batches %v; want one holding a (ok) and b (error)", f.batches)
	}
}

// FuzzRecorderWritesEveryLatestStateOnce plays a sequence of records,
// flushes and failing writes, read from ops a byte at a time, and checks
// what the store got: every span in its latest state, no batch holding a
// span twice. `go test` runs the seeds; `go test -fuzz` explores.
func FuzzRecorderWritesEveryLatestStateOnce(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0x80, 3, 0x40, 1, 0x81, 0xc0, 2, 0x82})
	f.Add([]byte{0, 0x40, 0x80, 0, 0xc0, 0xc0, 0, 0x80, 0x40, 1, 0x81, 0x81, 0xc0})
	f.Add([]byte{0x80, 0x80, 0xc1, 0x40, 0x80, 0x81, 0, 1, 2, 3, 0xc0, 0x83, 0x82, 0x81, 0x80})
	f.Fuzz(func(t *testing.T, ops []byte) {
		f := &fakeStore{}
		rec := trace.NewRecorder(f, trace.RecorderConfig{Interval: time.Hour, BatchSize: 3, Logger: quiet})
		defer rec.Close(context.Background())
		latest := map[string]trace.Span{}
		for n, op := range ops {
			id := fmt.Sprintf("s%d", op&0x07)
			switch op >> 6 {
			case 0: // a record while running
				s := sp(id, trace.StatusRunning)
				s.Attributes = map[string]any{"n": n}
				rec.RecordSpan(s)
				latest[id] = s
			case 1: // a write, failing when bit 3 is set
				if op&0x08 != 0 {
					f.mu.Lock()
					f.fail = append(f.fail, errors.New("disk I/O error"))
					f.mu.Unlock()
				}
				rec.Flush(context.Background())
			default: // a record of the span ended
				s := ended(id, trace.StatusOK)
				s.Attributes = map[string]any{"n": n}
				rec.RecordSpan(s)
				latest[id] = s
			}
		}
		f.mu.Lock()
		f.fail = nil
		f.mu.Unlock()
		if err := rec.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		f.onceEach(t)
		w := f.written()
		for id, s := range latest {
			if got := w[id]; got.Status != s.Status || got.Attributes["n"] != s.Attributes["n"] {
				t.Errorf("%s written as %s #%v, want its latest record %s #%v", id, got.Status, got.Attributes["n"], s.Status, s.Attributes["n"])
			}
		}
		if len(w) != len(latest) {
			t.Errorf("%d spans written, want %d", len(w), len(latest))
		}
	})
}
