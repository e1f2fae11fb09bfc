package postgres_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/postgres"
	"github.com/agentry/agentry/trace/postgres/pgtest"
	"github.com/agentry/agentry/trace/tracetest"
)

func open(t testing.TB, url string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(url)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

func TestConformance(t *testing.T) {
	tracetest.RunStoreTests(t, func(t *testing.T) trace.Store { return open(t, pgtest.URL(t)) })
}

// The writer that leaves runs behind is another store on the same schema,
// closed: its session, and with it its owner lock, is gone, as when its
// process is killed on any host.
func TestReaperConformance(t *testing.T) {
	tracetest.RunReaperTests(t, func(t *testing.T) (trace.Store, func([]trace.Run, []trace.Span)) {
		url := pgtest.URL(t)
		s := open(t, url)
		leave := func(runs []trace.Run, spans []trace.Span) {
			other := open(t, url)
			if err := other.Apply(t.Context(), runs, spans); err != nil {
				t.Fatal(err)
			}
			if err := other.Close(); err != nil {
				t.Fatal(err)
			}
		}
		return s, leave
	})
}

func TestConcurrentFirstOpensAllSucceed(t *testing.T) {
	url := pgtest.URL(t)
	var wg sync.WaitGroup
	stores := make([]*postgres.Store, 8)
	errs := make([]error, 8)
	for i := range stores {
		wg.Go(func() { stores[i], errs[i] = postgres.Open(url) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("open %d: %v", i, err)
			continue
		}
		defer stores[i].Close()
	}
	if t.Failed() {
		return
	}
	// Every store works on the one schema they made together.
	for i, s := range stores {
		if err := s.Apply(t.Context(), []trace.Run{{ID: trace.NewRunID(), Agent: "a", Status: trace.StatusOK}}, nil); err != nil {
			t.Errorf("store %d: %v", i, err)
		}
	}
	if page, err := stores[0].Runs(t.Context(), trace.RunFilter{}); err != nil || len(page.Runs) != 8 {
		t.Errorf("Runs = %d, %v; want 8", len(page.Runs), err)
	}
}

// A wrong password fails Open with an error that names the database but
// never shows the password, which a URL carries in plain text.
func TestOpenErrorsNeverShowThePassword(t *testing.T) {
	url := pgtest.URL(t)
	const secret = "wr0ng-Passw0rd-4-test"
	at := strings.Index(url, "@")
	colon := strings.LastIndex(url[:at], ":")
	bad := url[:colon+1] + secret + url[at:]
	_, err := postgres.Open(bad)
	if err == nil {
		t.Skip("the server accepts any password (trust authentication), so no error to check")
	}
	if strings.Contains(err.Error(), secret) {
		t.Fatalf("error shows the password: %v", err)
	}
	if !strings.Contains(err.Error(), "open trace db postgres://") {
		t.Errorf("error %q does not say which database", err)
	}
}

// In a database whose ctype is C, lower() folds ASCII only; the text
// filter folds beyond ASCII there too (the suite checks Ü and Σ).
func TestConformanceInACLocaleDatabase(t *testing.T) {
	url := pgtest.CLocaleDatabase(t)
	tracetest.RunStoreTests(t, func(t *testing.T) trace.Store { return open(t, url(t)) })
}
