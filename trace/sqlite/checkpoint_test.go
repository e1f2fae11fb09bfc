package sqlite_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/sqlite"
	"github.com/agentry/agentry/trace/tracetest"
)

// The writer's own automatic checkpoint waits for 8,192 pages of WAL, so
// pages reach the database file this soon only through the background
// checkpointer.
func TestCheckpointsRunBesideTheWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "traces.db")
	s, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	base := time.Now()
	for range 3 {
		r := trace.Run{ID: trace.NewRunID(), Agent: "coordinator", Status: trace.StatusRunning, StartedAt: base}
		spans := make([]trace.Span, 4096)
		for i := range spans {
			spans[i] = tracetest.BenchSpan(r.ID, i, base)
		}
		if err := s.Apply(t.Context(), []trace.Run{r}, spans); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); size() < before+1<<20; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("database file grew from %d to %d bytes after 12,288 spans; want their pages checkpointed into it", before, size())
		}
	}
}

// Closing a Store twice stays harmless with the checkpointer's goroutine.
func TestClosingTwiceIsHarmless(t *testing.T) {
	s, _ := openTemp(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v, want nil as before", err)
	}
}
