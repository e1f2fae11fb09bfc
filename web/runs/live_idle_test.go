package runs_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
	"github.com/agentry/agentry/web"
	"github.com/agentry/agentry/web/internal/webtest"
	"github.com/agentry/agentry/web/runs"
)

// countingStore counts what a live timeline asks the trace store.
type countingStore struct {
	*memory.Store
	reads atomic.Int64
}

func (s *countingStore) Run(ctx context.Context, id string) (trace.Run, error) {
	s.reads.Add(1)
	return s.Store.Run(ctx, id)
}

func (s *countingStore) SpansSince(ctx context.Context, id string, cursor int64) ([]trace.Span, int64, error) {
	s.reads.Add(1)
	return s.Store.SpansSince(ctx, id, cursor)
}

// lockedRecorder is an httptest.ResponseRecorder the test may read while the
// handler writes.
type lockedRecorder struct {
	*httptest.ResponseRecorder
	mu sync.Mutex
}

func (r *lockedRecorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ResponseRecorder.Write(p)
}

func (r *lockedRecorder) body() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.Body.String()
}

// TestAnIdleLiveTimelineCostsLittle leaves a timeline open on a running run
// whose trace does not change for a (virtual) minute, counts what the
// stream costs, and checks a change afterwards still shows within a second.
func TestAnIdleLiveTimelineCostsLittle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &countingStore{Store: memory.New()}
		srv := serveOneSpanRun(t, store, store.Store, "idle", trace.StatusRunning, time.Now())
		ctx, cancel := context.WithCancel(context.Background())
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/runs/idle/events", nil)
		req.Host = "127.0.0.1"
		rec := &lockedRecorder{ResponseRecorder: httptest.NewRecorder()}
		done := make(chan struct{})
		go func() { srv.ServeHTTP(rec, req); close(done) }()

		time.Sleep(time.Minute)
		synctest.Wait()
		reads, redraws := store.reads.Load(), strings.Count(rec.body(), "event: rows")
		t.Logf("one idle minute: %d store reads, %d redraws (at a fixed 150 ms poll and 1 s redraw: ~800 and 60)", reads, redraws)
		if reads > 150 || redraws > 16 {
			t.Errorf("one idle minute cost %d store reads and %d redraws, want at most 150 and 16", reads, redraws)
		}

		child := trace.Span{ID: "late", RunID: "idle", ParentID: "root", Kind: trace.KindChat, Name: "chat", Agent: "lead",
			Status: trace.StatusRunning, StartedAt: time.Now()}
		if err := store.Apply(context.Background(), nil, []trace.Span{child}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if !strings.Contains(rec.body(), "2 spans") {
			t.Error("a span recorded after an idle minute did not reach the stream within a second")
		}
		cancel()
		<-done
	})
}

// serveOneSpanRun is a web server over store, into which mem (what store
// wraps) was given run id: one root span of lead, with status, started at
// start and, when status is final, ended a second later.
func serveOneSpanRun(t *testing.T, store runs.RunStore, mem *memory.Store, id string, status trace.Status, start time.Time) *web.Server {
	t.Helper()
	var end time.Time
	if status.IsFinal() {
		end = start.Add(time.Second)
	}
	run := trace.Run{ID: id, Agent: "lead", Task: "x", Status: status, StartedAt: start, EndedAt: end}
	root := trace.Span{ID: "root", RunID: id, Kind: trace.KindInvokeAgent, Name: "lead", Agent: "lead",
		Status: status, StartedAt: start, EndedAt: end}
	if err := mem.Apply(context.Background(), []trace.Run{run}, []trace.Span{root}); err != nil {
		t.Fatal(err)
	}
	folder := webtest.NewMemFolder(team)
	srv, err := web.New(web.Config{Agents: folder.Reg, Files: folder, Runs: store})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}
