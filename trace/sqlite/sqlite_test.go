package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/sqlite"
	"github.com/agentry/agentry/trace/tracetest"
	"time"
)

// openTemp opens a fresh database in the test's temp dir.
func openTemp(t *testing.T) (*sqlite.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "traces.db")
	s, err := sqlite.Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s, path
}

func TestConformance(t *testing.T) {
	tracetest.RunStoreTests(t, func(t *testing.T) trace.Store {
		s, _ := openTemp(t)
		return s
	})
}

// tracetestBase is a fixed instant with microseconds.
var tracetestBase = time.Date(2026, 11, 3, 14, 5, 9, 123456000, time.UTC)
