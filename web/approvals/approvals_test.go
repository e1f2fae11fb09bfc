package approvals_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/memory"

	"github.com/agentry/agentry/web"

	"github.com/agentry/agentry/web/internal/dom"
	"github.com/agentry/agentry/web/internal/webtest"
)

// countingStore counts the badge's queries.
type countingStore struct {
	*memory.Store
	counts atomic.Int64
}

func (c *countingStore) PendingApprovals(ctx context.Context) (int, error) {
	c.counts.Add(1)
	return c.Store.PendingApprovals(ctx)
}

func pendingStore(t *testing.T) *countingStore {
	t.Helper()
	s := &countingStore{Store: memory.New()}
	now := time.Now()
	if err := s.Apply(context.Background(), []trace.Run{{ID: "run1", Agent: "ops", Task: "deploy", Status: trace.StatusRunning, StartedAt: now}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"ap1", "ap2"} {
		if err := s.RequestApproval(context.Background(), approval.Approval{ID: id, RunID: "run1", SpanID: "s" + id, Agent: "ops", Tool: "shell.run",
			Subject: "shell.run", Arguments: `{"command":"make deploy"}`, Reason: "needs approval for each call", RequestedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestTheBadgeIsCountedOnlyWhenAPageWithTheNavRenders(t *testing.T) {
	store := pendingStore(t)
	e := webtest.NewEnv(t, nil, func(c *web.Config) { c.Runs, c.Approvals = store, store })
	for _, path := range []string{"/static/style.css", "/static/timeline.js", "/"} {
		resp, err := e.Client.Get(e.HTTP.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if n := store.counts.Load(); n != 0 {
		t.Errorf("%d badge queries for static files and a redirect, want 0", n)
	}
	status, doc := e.Get("/agents")
	if status != http.StatusOK || store.counts.Load() != 1 {
		t.Fatalf("GET /agents: %d, %d badge queries, want 1", status, store.counts.Load())
	}
	if got := dom.TextOf(dom.Find(doc, "nav-badge-approvals")); got != "2" {
		t.Errorf("badge = %q, want 2", got)
	}
}

// The badge a live page polls is one count, answered alone; pages that do
// not update live do not poll it.
func TestTheNavBadgeFragmentIsOneCount(t *testing.T) {
	store := pendingStore(t)
	e := webtest.NewEnv(t, nil, func(c *web.Config) { c.Runs, c.Approvals = store, store })
	status, doc := e.Get("/nav/badge?for=/approvals")
	if status != http.StatusOK || store.counts.Load() != 1 || dom.TextOf(dom.Find(doc, "nav-badge-approvals")) != "2" {
		t.Fatalf("GET /nav/badge: %d, %d badge queries, badge %q; want 200, 1, 2", status, store.counts.Load(), dom.TextOf(dom.Find(doc, "nav-badge-approvals")))
	}
	if live := dom.Find(doc, "nav-live-approvals"); live == nil || dom.Attr(live, "hx-get") != "/nav/badge?for=%2Fapprovals" {
		t.Error("the polled badge does not keep polling")
	}
	if status, _ := e.Get("/nav/badge?for=/runs"); status != http.StatusNotFound {
		t.Errorf("a nav entry without a badge answered %d, want 404", status)
	}
	if _, doc := e.Get("/agents"); dom.Find(doc, "nav-live-approvals") != nil {
		t.Error("a page that does not update live polls the badge")
	}
}

func TestAnswersFromTheApprovalsPage(t *testing.T) {
	store := pendingStore(t)
	e := webtest.NewEnv(t, nil, func(c *web.Config) { c.Runs, c.Approvals = store, store })
	status, doc := e.Get("/approvals")
	if n := waiting(doc); status != http.StatusOK || n != 2 {
		t.Fatalf("GET /approvals: %d with %d waiting calls", status, n)
	}
	csrf := dom.CSRFOf(doc)
	status, _, resp := e.Post("/approvals/ap1/deny", url.Values{"reason": {"not during the freeze"}, "return": {"//evil.example/x"}}, csrf)
	if status != http.StatusSeeOther || resp.Header.Get("Location") != "/approvals?answered=denied" {
		t.Errorf("deny: %d to %q; want a redirect to the list, never off the site", status, resp.Header.Get("Location"))
	}
	got, _ := store.Approval(context.Background(), "ap1")
	if got.Status != approval.Denied || got.Note != "not during the freeze" || got.DecidedBy != "web" {
		t.Errorf("ap1 = %+v", got)
	}
	status, _, _ = e.Post("/approvals/ap1/approve", url.Values{}, csrf)
	if status != http.StatusConflict {
		t.Errorf("a second answer: %d, want 409", status)
	}
	status, _, resp = e.Post("/approvals/ap2/approve", url.Values{"for_run": {"1"}, "return": {"/runs/run1"}}, csrf)
	if status != http.StatusSeeOther || resp.Header.Get("Location") != "/runs/run1" {
		t.Errorf("approve: %d to %q", status, resp.Header.Get("Location"))
	}
	if got, _ := store.Approval(context.Background(), "ap2"); got.Status != approval.Approved || !got.ForRun {
		t.Errorf("ap2 = %+v", got)
	}
	status, _, _ = e.Post("/approvals/ap2/approve", url.Values{}, "")
	if status != http.StatusForbidden && status != http.StatusBadRequest {
		t.Errorf("an answer without the CSRF token: %d", status)
	}
	_, doc = e.Get("/approvals")
	if text := dom.TextOf(dom.Find(doc, "approvals-answered")); !strings.Contains(text, "not during the freeze") || !strings.Contains(text, "whole run") {
		t.Errorf("answered table: %q", text)
	}
}

// waiting counts the waiting calls on a page.
func waiting(doc *html.Node) int {
	n := 0
	for _, el := range dom.FindAll(doc, "approval") {
		if dom.Attr(el, "data-testid") == "approval" {
			n++
		}
	}
	return n
}
