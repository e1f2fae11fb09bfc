package agents_test

import (
	"net/http"
	"strings"
	"testing"
)

func TestAgentsListShowsEveryFileWithItsStatus(t *testing.T) {
	files := map[string]string{
		"lead.md":   team["lead.md"],
		"writer.md": team["writer.md"],
		"broken.md": "---\nname: broken\n",
		"vague.md":  "---\nname: vague\ndescription: Uses an unknown tool.\ntools: [NotebookEdit]\n---\nx\n",
	}
	e := newTestEnv(t, files)
	status, doc := e.Get("/agents")
	if status != http.StatusOK {
		t.Fatalf("GET /agents = %d", status)
	}
	cases := []struct{ row, status string }{
		{"agent-row-writer", "ok"},
		{"agent-row-broken", "broken"},
		{"agent-row-vague", "warning"},
	}
	for _, c := range cases {
		row := find(doc, c.row)
		if row == nil {
			t.Fatalf("no row %s", c.row)
		}
		if got := textOf(find(row, "agent-status")); got != c.status {
			t.Errorf("%s status = %q, want %q", c.row, got, c.status)
		}
	}
	if p := textOf(find(doc, "agent-problems-broken")); !strings.Contains(p, "never closed") {
		t.Errorf("broken row problems = %q, want the parse error", p)
	}
	if got := attr(find(find(doc, "agent-row-writer"), "toggle-enabled"), "aria-checked"); got != "false" {
		t.Errorf("writer toggle aria-checked = %q, want false", got)
	}
	if !strings.Contains(textOf(find(doc, "agent-row-lead")), "Leads the work.") {
		t.Error("lead row lacks its description")
	}
}

func TestAgentsSearchKeepsMatchingRowsOnly(t *testing.T) {
	e := newTestEnv(t, team)
	_, doc := e.Get("/agents?partial=table&q=ANALY")
	rows := findAll(doc, "agent-row-")
	if len(rows) != 1 || attr(rows[0], "data-testid") != "agent-row-analyst" {
		t.Fatalf("rows = %d, want only analyst", len(rows))
	}
	if find(doc, "nav") != nil {
		t.Error("the partial table came with the layout")
	}
}

func TestTogglingEnabledWritesTheFile(t *testing.T) {
	e := newTestEnv(t, team)
	_, doc := e.Get("/agents")
	form := formValues(find(doc, "agent-row-writer"))
	status, _, _ := e.Post("/agents/writer/enabled", form, "")
	if status != http.StatusSeeOther {
		t.Fatalf("toggle = %d, want 303", status)
	}
	got, _ := e.Folder.Disk("writer.md")
	if !strings.Contains(got, "enabled: true") {
		t.Errorf("file after toggle:\n%s", got)
	}
}
