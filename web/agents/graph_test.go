package agents_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/permissions"

	"github.com/agentry/agentry/web"
)

func TestGraphDrawsAllowedDeniedAndDisabledEdgesDifferently(t *testing.T) {
	e := newTestEnv(t, team)
	status, doc := e.Get("/graph")
	if status != http.StatusOK {
		t.Fatalf("GET /graph = %d", status)
	}
	cases := []struct{ edge, kind string }{
		{"edge-lead-analyst", "allowed"},
		{"edge-lead-intern", "denied"},
		{"edge-lead-writer", "to-disabled"},
	}
	for _, c := range cases {
		n := find(doc, c.edge)
		if n == nil {
			t.Errorf("no %s", c.edge)
			continue
		}
		if got := attr(n, "data-kind"); got != c.kind {
			t.Errorf("%s kind = %q, want %q", c.edge, got, c.kind)
		}
	}
	if find(doc, "edge-analyst-lead") != nil {
		t.Error("analyst has no allow list, yet an edge to lead is drawn")
	}
	if !strings.Contains(attr(find(doc, "node-writer"), "class"), "disabled") {
		t.Error("the disabled writer is not greyed")
	}
	if attr(find(doc, "node-lead"), "href") != "/agents/lead" {
		t.Error("a node does not link to its agent")
	}
}

func TestGraphHonoursTheGlobalDisabledList(t *testing.T) {
	e := newTestEnv(t, team, func(c *web.Config) { c.Delegation = permissions.Delegation{Disabled: []string{"analyst"}} })
	_, doc := e.Get("/graph")
	if got := attr(find(doc, "edge-lead-analyst"), "data-kind"); got != "to-disabled" {
		t.Errorf("edge to a globally disabled agent = %q, want %q", got, "to-disabled")
	}
}

func TestGraphOverTheDrawingLimitShowsTheListAlone(t *testing.T) {
	e := newTestEnv(t, manyAgents(151))
	status, doc := e.Get("/graph")
	if status != http.StatusOK {
		t.Fatalf("GET /graph = %d", status)
	}
	if find(doc, "graph") != nil {
		t.Error("151 agents are drawn; the limit is 150")
	}
	if !strings.Contains(textOf(find(doc, "graph-note")), "as a list") {
		t.Error("no note says why the graph is not drawn")
	}
	if n := len(findAll(doc, "graph-list")); n != 1 {
		t.Errorf("%d lists, want 1", n)
	}
}
