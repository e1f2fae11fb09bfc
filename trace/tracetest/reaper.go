package tracetest

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
)

// ReaperOpenFunc returns a fresh, empty store, and
// leave, which writes runs and spans as a writer that has since ended would
// have left them (another process killed, another host's session gone).
// The suite closes the store.
type ReaperOpenFunc func(t *testing.T) (s trace.Store, leave func(runs []trace.Run, spans []trace.Span))

// RunReaperTests runs the suite of Store.MarkInterrupted for stores that
// several processes write (trace/sqlite, trace/postgres): the runs of a
// writer that ended are interrupted, those of a live one are not.
func RunReaperTests(t *testing.T, open ReaperOpenFunc) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s trace.Store, leave func([]trace.Run, []trace.Span))
	}{
		{"runs of an ended writer are interrupted and live runs are not", testReapOnce},
		{"the reaper loop marks them without being asked", testReaperLoop},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, leave := open(t)
			t.Cleanup(func() { s.Close() })
			tc.fn(t, s, leave)
		})
	}
}

// orphaned is a run an ended writer left: one finished span, one open.
func orphaned(id string) (trace.Run, []trace.Span) {
	r := run(id, "lead", "never ends", 0)
	return r, []trace.Span{
		span(id, "root", "", trace.KindInvokeAgent, "lead", 0, -1),
		span(id, "chat", "root", trace.KindChat, "lead", 10, 40),
	}
}

func testReapOnce(t *testing.T, s trace.Store, leave func([]trace.Run, []trace.Span)) {
	live, liveSpans := orphaned("live")
	mustApply(t, s, []trace.Run{live}, liveSpans)
	gone, goneSpans := orphaned("gone")
	leave([]trace.Run{gone}, goneSpans)
	_, cursor, err := s.SpansSince(ctx(t), "gone", 0)
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.MarkInterrupted(ctx(t))
	if err != nil || n != 1 {
		t.Fatalf("MarkInterrupted = %d, %v; want 1 run", n, err)
	}
	r, err := s.Run(ctx(t), "gone")
	if err != nil || r.Status != trace.StatusInterrupted || !r.EndedAt.Equal(at(40)) || r.Error == "" {
		t.Errorf("run = %+v, %v; want interrupted at its last record (%v) with a reason", r, err, at(40))
	}
	changed, _, err := s.SpansSince(ctx(t), "gone", cursor)
	if err != nil || len(changed) != 1 || changed[0].ID != "root" || changed[0].Status != trace.StatusInterrupted ||
		!changed[0].EndedAt.Equal(at(40)) {
		t.Errorf("a live poller saw %+v, %v; want the open span, interrupted at %v", changed, err, at(40))
	}
	if r, _ := s.Run(ctx(t), "live"); r.Status != trace.StatusRunning {
		t.Errorf("the live writer's run became %s", r.Status)
	}
	if n, err := s.MarkInterrupted(ctx(t)); err != nil || n != 0 {
		t.Errorf("second MarkInterrupted = %d, %v; want nothing left to mark", n, err)
	}
}

func testReaperLoop(t *testing.T, s trace.Store, leave func([]trace.Run, []trace.Span)) {
	gone, goneSpans := orphaned("gone")
	leave([]trace.Run{gone}, goneSpans)
	stop := trace.StartReaper(s, 10*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer stop()
	deadline := time.Now().Add(30 * time.Second) // bounds a broken reaper only
	for {
		r, err := s.Run(ctx(t), "gone")
		if err != nil {
			t.Fatal(err)
		}
		if r.Status == trace.StatusInterrupted {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("run still %s", r.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
