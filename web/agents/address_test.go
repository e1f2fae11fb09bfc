package agents_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/web/internal/dom"
)

// awkward is a folder a newcomer may well have: a file sorted before its
// name, a broken file whose name is not valid, two files with one name, a
// file whose YAML does not parse, and a file with values that are not valid.
var awkward = map[string]string{
	"a-zeta.md":      "---\nname: zeta\ndescription: Last by name.\n---\nZ.\n",
	"b-alpha.md":     "---\nname: alpha\ndescription: First by name.\n---\nA.\n",
	"Bad Name.md":    "---\nname: Bad Name\ndescription: Invalid name.\n---\nB.\n",
	"twin-1.md":      "---\nname: twin\ndescription: The first twin.\n---\nT1.\n",
	"twin-2.md":      "---\nname: twin\ndescription: The second twin.\n---\nT2.\n",
	"yaml-broken.md": "---\nname: broken\ndescription: [unclosed\n---\nX.\n",
	"typos.md":       "---\nname: typos\ndescription: Has typos.\nsubagents:\n  execution: paralel\nmax_turns: many\n---\nT.\n",
	"sparse.md":      "---\nname: sparse\ndescription: Sets almost nothing.\n---\nS.\n",
}

func rowLinks(t *testing.T, e *testEnv) map[string]string {
	t.Helper()
	_, doc := e.Get("/agents")
	out := map[string]string{}
	for _, row := range findAll(doc, "agent-row") {
		file := ""
		for _, td := range findAll(row, "agent-file") {
			file = textOf(td)
		}
		if a := find(row, "agent-link"); a != nil {
			out[file] = attr(a, "href")
		}
	}
	return out
}

func TestTheListIsSortedByName(t *testing.T) {
	e := newTestEnv(t, awkward)
	_, doc := e.Get("/agents")
	var names []string
	for _, a := range findAll(doc, "agent-link") {
		names = append(names, textOf(a))
	}
	if len(names) < 2 || names[0] != "alpha" || !strings.HasPrefix(strings.Join(names, ","), "alpha,") || names[len(names)-1] != "zeta" {
		t.Errorf("list order %v, want by name: alpha first, zeta last", names)
	}
}

func TestEveryFileOnDiskOpens(t *testing.T) {
	e := newTestEnv(t, awkward)
	links := rowLinks(t, e)
	if len(links) != len(awkward) {
		t.Fatalf("%d linked rows, want one per file (%d): %v", len(links), len(awkward), links)
	}
	for file, href := range links {
		status, doc := e.Get(href)
		if status != http.StatusOK {
			t.Errorf("%s links to %s, which answers %d", file, href, status)
			continue
		}
		if got := textOf(find(doc, "editor-path")); got != file {
			t.Errorf("%s opens the editor of %q", file, got)
		}
		if strings.TrimSpace(textOf(find(doc, "editor-title"))) == "" {
			t.Errorf("%s opens a page without a heading", file)
		}
	}
	if href := links["twin-2.md"]; href != "/agents/file/twin-2.md" {
		t.Errorf("the second twin is addressed as %q, want by its path", href)
	}
}

func TestAFileWithAYAMLErrorShowsTheRawEditorWithTheLineMarked(t *testing.T) {
	e := newTestEnv(t, awkward)
	status, doc := e.Get("/agents/file/yaml-broken.md")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	if got := textOf(find(doc, "editor-title")); got != "Broken file yaml-broken.md" {
		t.Errorf("heading %q", got)
	}
	bad := find(doc, "raw-error-line")
	if bad == nil || attr(bad, "value") != "3" {
		t.Errorf("the line with the YAML error is not marked: %v", textOf(find(doc, "raw-lines")))
	}
	if find(doc, "raw-text") == nil {
		t.Error("no raw editor")
	}
	// Fixing it through the path address works.
	v := formValues(find(doc, "raw-form"))
	v.Set("raw", "---\nname: broken\ndescription: fixed\n---\nX.\n")
	if status, _, resp := e.Post("/agents/file/yaml-broken.md/raw", v, csrfOf(doc)); status != http.StatusSeeOther {
		t.Fatalf("raw save = %d", status)
	} else if loc := resp.Header.Get("Location"); loc != "/agents/broken?saved=1" {
		t.Errorf("after the fix the page goes to %q", loc)
	}
}

func TestTheEditorShowsWhatTheFileSaysAndWritesOnlyWhatChanged(t *testing.T) {
	e := newTestEnv(t, awkward)
	_, doc := e.Get("/agents/typos")
	if got := attr(find(doc, "field-max_turns"), "value"); got != "many" {
		t.Errorf("max_turns shows %q, want the file's many", got)
	}
	if inv := find(doc, "invalid-subagents.execution"); inv == nil || !dom.HasAttr(inv, "selected") {
		t.Error("execution does not show the file's paralel as selected and invalid")
	}
	if find(doc, "problem-max_turns") == nil || find(doc, "problem-subagents.execution") == nil {
		t.Error("the invalid values are not marked")
	}

	form, csrf := e.EditForm("sparse")
	for _, k := range []string{"subagents.execution", "subagents.context", "max_turns", "timeout", "retry.max_attempts", "subagents.max_concurrent", "model"} {
		if form.Get(k) != "" {
			t.Errorf("%s shows %q for a key the file does not set", k, form.Get(k))
		}
	}
	form.Set("description", "Still sparse.")
	if status, _, _ := e.Post("/agents/sparse", form, csrf); status != http.StatusSeeOther {
		t.Fatalf("save = %d", status)
	}
	if got, _ := e.Folder.Disk("sparse.md"); got != "---\nname: sparse\ndescription: Still sparse.\n---\nS.\n" {
		t.Errorf("saving one changed field wrote more:\n%s", got)
	}
}

func TestANewAgentMayUseNoToolUntilSomeAreAdded(t *testing.T) {
	e := newTestEnv(t, team)
	_, doc := e.Get("/agents/new")
	if dom.HasAttr(find(doc, "field-tools.any"), "checked") {
		t.Error("a new agent starts with any tool allowed")
	}
	v := formValues(find(doc, "agent-form"))
	for _, k := range []string{"subagents.execution", "subagents.context", "subagents.max_concurrent", "retry.max_attempts", "retry.backoff"} {
		if v.Get(k) != "" {
			t.Errorf("a new agent shows the default %s %q as if set", k, v.Get(k))
		}
	}
}

func TestTheEditorOffersToRunTheAgent(t *testing.T) {
	e := newTestEnv(t, awkward)
	_, doc := e.Get("/agents/alpha")
	if got := attr(find(doc, "run-agent"), "href"); got != "/runs/new?agent=alpha" {
		t.Errorf("Run this agent links to %q", got)
	}
	_, doc = e.Get("/agents/file/yaml-broken.md")
	if find(doc, "run-agent") != nil {
		t.Error("a file that names no agent offers to run it")
	}
}

func TestTheListShowsADisplayNameBesideTheID(t *testing.T) {
	e := newTestEnv(t, map[string]string{"csharp.md": "---\nname: C# Expert\ndescription: Knows C#.\n---\nC#.\n"})
	_, doc := e.Get("/agents")
	if got := textOf(find(doc, "agent-display")); got != "C# Expert" {
		t.Errorf("display name shown as %q", got)
	}
	if href := attr(find(doc, "agent-link"), "href"); href == "" {
		t.Error("the agent with a display name has no link")
	} else if status, _ := e.Get(href); status != http.StatusOK {
		t.Errorf("%s answers %d", href, status)
	}
}

func TestTheSecondOfTwoFilesWithOneNameIsFixedByRenamingIt(t *testing.T) {
	e := newTestEnv(t, awkward)
	status, doc := e.Get("/agents/file/twin-2.md")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	form := formValues(find(doc, "agent-form"))
	form.Set("name", "twin-two")
	status, doc, resp := e.Post("/agents/file/twin-2.md", form, csrfOf(doc))
	if status != http.StatusSeeOther {
		t.Fatalf("save = %d: %s", status, textOf(find(doc, "main")))
	}
	if loc := resp.Header.Get("Location"); loc != "/agents/twin-two?saved=1" {
		t.Errorf("after the rename the page goes to %q", loc)
	}
	if got, ok := e.Folder.Disk("twin-two.md"); !ok || !strings.Contains(got, "name: twin-two") {
		t.Errorf("twin-two.md = %q", got)
	}
}

func TestAFilesAddressServesTheActionsOfItsMethodAndNothingElse(t *testing.T) {
	e := newTestEnv(t, awkward)
	cases := []struct {
		path string
		want int
	}{
		{"/agents/file/twin-2.md", http.StatusOK},
		{"/agents/file/twin-2.md/delete", http.StatusOK},
		{"/agents/file/twin-2.md/raw", http.StatusNotFound},    // posted only
		{"/agents/file/twin-2.md/rename", http.StatusNotFound}, // posted only
		{"/agents/file/twin-2.md/bogus", http.StatusNotFound},  // not an action: no such file
		{"/agents/file/twin-2.md/", http.StatusNotFound},
	}
	for _, c := range cases {
		if status, _ := e.Get(c.path); status != c.want {
			t.Errorf("GET %s = %d, want %d", c.path, status, c.want)
		}
	}
}
