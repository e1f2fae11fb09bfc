package runs_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
	"github.com/agentry/agentry/web"
)

// convStore is the memory store with the conversations trace/sqlite keeps.
type convStore struct {
	*memory.Store
	convs map[string]string
}

func (s convStore) ConversationIDs(_ context.Context, ids []string) (map[string]string, error) {
	out := map[string]string{}
	for _, id := range ids {
		if c, ok := s.convs[id]; ok {
			out[id] = c
		}
	}
	return out, nil
}

func TestTheRunsListGroupsAConversationsRunsAndMarksFollowUps(t *testing.T) {
	var store convStore
	e := newRunsEnv(t, func(c *web.Config) {
		store = convStore{Store: c.Runs.(*memory.Store), convs: map[string]string{"a": "a", "c": "a"}}
		c.Runs = store
	})
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
