package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/tracetest"
)

func TestReaperConformance(t *testing.T) {
	tracetest.RunReaperTests(t, func(t *testing.T) (trace.Store, func([]trace.Run, []trace.Span)) {
		s, err := Open(filepath.Join(t.TempDir(), "traces.db"))
		if err != nil {
			t.Fatal(err)
		}
		// What a process that no longer exists left: its runs carry a pid
		// no process has.
		leave := func(runs []trace.Run, spans []trace.Span) {
			if err := s.Apply(t.Context(), runs, spans); err != nil {
				t.Fatal(err)
			}
			for _, r := range runs {
				if _, err := s.write.Exec("UPDATE runs SET owner_pid = ? WHERE id = ?", 1<<30, r.ID); err != nil {
					t.Fatal(err)
				}
			}
		}
		return s, leave
	})
}
