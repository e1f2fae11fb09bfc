package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/permissions"
)

func TestGraphDrawsAllowedDeniedAndDisabledEdgesDifferently(t *testing.T) {
	e := newTestEnv(t, team)
	status, doc := e.get("/graph")
	if status != http.StatusOK {
		t.Fatalf("GET /graph = %d", status)
	}
	cases := []struct{ edge, kind string }{
		{"edge-lead-analyst", edgeAllowed},
		{"edge-lead-intern", edgeDenied},
		{"edge-lead-writer", edgeDisabled},
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
	e := newTestEnv(t, team, func(c *Config) { c.Delegation = permissions.Delegation{Disabled: []string{"analyst"}} })
	_, doc := e.get("/graph")
	if got := attr(find(doc, "edge-lead-analyst"), "data-kind"); got != edgeDisabled {
		t.Errorf("edge to a globally disabled agent = %q, want %q", got, edgeDisabled)
	}
}

func TestColumnsPutCallersBeforeTheirTargetsEvenOnACycle(t *testing.T) {
	e := newTestEnv(t, map[string]string{
		"a.md": "---\nname: a\ndescription: x\nsubagents: {allow: [b], nested: true}\n---\n",
		"b.md": "---\nname: b\ndescription: x\nsubagents: {allow: [a], nested: true}\n---\n",
		"c.md": "---\nname: c\ndescription: x\nsubagents: {allow: [a]}\n---\n",
	})
	v := graphView(e.srv.cfg.Agents.Snapshot(), permissions.Delegation{})
	x := map[string]int{}
	for _, n := range v.Nodes {
		x[n.Name] = n.X
	}
	if !(x["c"] < x["a"] && x["a"] < x["b"]) {
		t.Errorf("columns c=%d a=%d b=%d, want c < a < b", x["c"], x["a"], x["b"])
	}
}

func TestColumnsPutATargetAfterEveryCallerOnALongerPath(t *testing.T) {
	e := newTestEnv(t, map[string]string{
		"lead.md":  "---\nname: lead\ndescription: x\nsubagents: {allow: [coord, leaf], nested: true}\n---\n",
		"coord.md": "---\nname: coord\ndescription: x\nsubagents: {allow: [leaf], nested: true}\n---\n",
		"leaf.md":  "---\nname: leaf\ndescription: x\n---\n",
	})
	v := graphView(e.srv.cfg.Agents.Snapshot(), permissions.Delegation{})
	x := map[string]int{}
	for _, n := range v.Nodes {
		x[n.Name] = n.X
	}
	if !(x["lead"] < x["coord"] && x["coord"] < x["leaf"]) {
		t.Errorf("columns lead=%d coord=%d leaf=%d, want leaf after coord, which calls it", x["lead"], x["coord"], x["leaf"])
	}
}
