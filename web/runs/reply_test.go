package runs_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agentry/agentry/trace"
)

func TestTheRunsListGroupsAConversationsRunsAndMarksFollowUps(t *testing.T) {
	e := newRunsEnv(t)
	for _, run := range []string{"a", "c"} {
		if err := e.store.AddConversationRun(context.Background(), "a", run, nil); err != nil {
			t.Fatal(err)
		}
	}
	e.seed("a", "lead", "plan the launch", trace.StatusOK, 1)
	e.seed("b", "analyst", "crunch numbers", trace.StatusOK, 2)
	e.seed("c", "lead", "and the budget?", trace.StatusOK, 3)
	_, doc := e.Get("/runs")
	var tasks []string
	for _, row := range findAll(doc, "run-row") {
		tasks = append(tasks, strings.Join(strings.Fields(textOf(row)), " "))
	}
	if len(tasks) != 3 || !strings.Contains(tasks[0], "↳ follow-up and the budget?") || !strings.Contains(tasks[1], "plan the launch") || !strings.Contains(tasks[2], "crunch numbers") {
		t.Fatalf("rows = %q, want the follow-up, then its conversation's first run, then the other run", tasks)
	}
	if n := len(findAll(doc, "run-follow-up")); n != 1 {
		t.Errorf("%d follow-up marks, want 1", n)
	}
}

func TestTheReplyBoxStartsAFollowUpOfTheRunsAgent(t *testing.T) {
	e := newRunsEnv(t)
	e.seed("a", "lead", "plan the launch", trace.StatusOK, 1)
	status, doc := e.Get("/runs/a")
	if status != http.StatusOK || find(doc, "reply-box") == nil {
		t.Fatalf("status %d, reply box present: %v", status, find(doc, "reply-box") != nil)
	}
	code, _, resp := e.Post("/runs/a/reply", url.Values{"message": {"and the budget?"}}, csrfOf(doc))
	reqs := e.runner.Requests()
	if len(reqs) != 1 || reqs[0].Agent != "lead" || reqs[0].Task != "and the budget?" || reqs[0].Continue != "a" {
		t.Fatalf("requests = %+v, want a follow-up of a by lead", reqs)
	}
	if loc := resp.Header.Get("Location"); code != http.StatusSeeOther || loc == "/runs/a" || !strings.HasPrefix(loc, "/runs/") {
		t.Errorf("reply answered %d to %q, want the follow-up's timeline", code, loc)
	}
}
