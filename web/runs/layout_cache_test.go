package runs_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
)

// layoutReads counts the whole-run reads a layout is built from.
type layoutReads struct {
	*memory.Store
	skeletons atomic.Int64
}

func (s *layoutReads) Skeleton(ctx context.Context, id string) ([]trace.Span, int64, error) {
	s.skeletons.Add(1)
	return s.Store.Skeleton(ctx, id)
}

// Asking for runs the store does not hold evicts no run's layout: the run
// just read is still laid out, not read again.
func TestUnknownRunIDsEvictNoLayout(t *testing.T) {
	store := &layoutReads{Store: memory.New()}
	srv := serveOneSpanRun(t, store, store.Store, "r1", trace.StatusOK, time.Now().Add(-time.Minute))
	get := func(path string) int {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Host = "127.0.0.1"
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec.Code
	}
	if code := get("/runs/r1"); code != http.StatusOK {
		t.Fatalf("GET /runs/r1 = %d", code)
	}
	for _, id := range []string{"n1", "n2", "n3", "n4", "n5"} {
		if code := get("/runs/" + id); code != http.StatusNotFound {
			t.Fatalf("GET /runs/%s = %d, want 404", id, code)
		}
	}
	if code := get("/runs/r1"); code != http.StatusOK {
		t.Fatalf("GET /runs/r1 again = %d", code)
	}
	if n := store.skeletons.Load(); n != 1 {
		t.Errorf("r1 was read whole %d times, want once: the unknown runs evicted its layout", n)
	}
}
