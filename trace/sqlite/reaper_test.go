package sqlite

import (
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
)

func TestReaperMarksRunsOfEndedProcessesInterrupted(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "traces.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Date(2026, 11, 3, 14, 5, 9, 0, time.UTC)
	runs := []trace.Run{
		{ID: "gone", Agent: "a", Status: trace.StatusRunning, StartedAt: t0},
		{ID: "alive", Agent: "a", Status: trace.StatusRunning, StartedAt: t0},
	}
	span := trace.Span{ID: "open", RunID: "gone", Kind: trace.KindInvokeAgent, Status: trace.StatusRunning, StartedAt: t0}
	if err := s.Apply(t.Context(), runs, []trace.Span{span}); err != nil {
		t.Fatal(err)
	}
	// "gone" now belongs to a process that does not exist.
	if _, err := s.write.Exec("UPDATE runs SET owner_pid = ? WHERE id = 'gone'", 1<<30); err != nil {
		t.Fatal(err)
	}
	stop := trace.StartReaper(s, 10*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer stop()
	deadline := time.Now().Add(30 * time.Second) // bounds a broken reaper only
	for {
		r, err := s.Run(t.Context(), "gone")
		if err != nil {
			t.Fatal(err)
		}
		if r.Status == trace.StatusInterrupted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("run still %s", r.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	if r, _ := s.Run(t.Context(), "alive"); r.Status != trace.StatusRunning {
		t.Errorf("the live process's run became %s", r.Status)
	}
	if spans, _ := s.Spans(t.Context(), "gone"); len(spans) != 1 || spans[0].Status != trace.StatusInterrupted {
		t.Errorf("open span = %+v, want interrupted", spans)
	}
}
