package agents_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/agentry/agentry/registry"
)

func TestSavingAnUnchangedFormKeepsEveryExampleAgentByteIdentical(t *testing.T) {
	files := exampleAgents(t)
	e := newTestEnv(t, files)
	for path, want := range files {
		t.Run(path, func(t *testing.T) {
			f, ok := e.Config.Agents.Snapshot().File(path)
			if !ok || f.Agent == "" {
				t.Fatalf("example %s did not load as an agent", path)
			}
			form, csrf := e.EditForm(f.Agent)
			status, doc, _ := e.Post("/agents/"+f.Agent, form, csrf)
			if status != http.StatusSeeOther {
				t.Fatalf("save = %d: %s", status, textOf(find(doc, "main")))
			}
			if got, _ := e.Folder.Disk(path); got != want {
				t.Errorf("file changed by an unchanged save:\n--- before\n%s\n--- after\n%s", want, got)
			}
		})
	}
}

func TestSavingAChangedFieldKeepsCommentsAndUnknownKeys(t *testing.T) {
	e := newTestEnv(t, team)
	form, csrf := e.EditForm("lead")
	form.Set("description", "Leads the whole project.")
	form.Set("subagents.max_concurrent", "2")
	if status, _, _ := e.Post("/agents/lead", form, csrf); status != http.StatusSeeOther {
		t.Fatalf("save = %d", status)
	}
	got, _ := e.Folder.Disk("lead.md")
	for _, want := range []string{"description: Leads the whole project.", "# a comment the editor must keep", "color: blue", "max_concurrent: 2", "You lead.\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("saved file lacks %q:\n%s", want, got)
		}
	}
}

func TestACycleIsShownNextToTheSubagentsFieldAndNothingIsSaved(t *testing.T) {
	e := newTestEnv(t, team)
	form, csrf := e.EditForm("analyst")
	form["subagents.allow"] = []string{"lead"}
	status, doc, _ := e.Post("/agents/analyst", form, csrf)
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("save = %d, want 422", status)
	}
	msg := textOf(find(doc, "problem-subagents.allow"))
	if !strings.Contains(msg, "cycle") {
		t.Errorf("problem next to subagents.allow = %q, want a cycle", msg)
	}
	if got, _ := e.Folder.Disk("analyst.md"); got != team["analyst.md"] {
		t.Errorf("file was written despite the error:\n%s", got)
	}
	if chips := findAll(find(doc, "picker-subagents.allow"), "chip"); len(chips) != 1 {
		t.Errorf("the form lost the user's input: %d chips", len(chips))
	}
}

func TestSavingAfterTheFileChangedOnDiskIsRefusedWithBothVersions(t *testing.T) {
	e := newTestEnv(t, team)
	form, csrf := e.EditForm("intern")
	e.Folder.Edit("intern.md", "---\nname: intern\ndescription: Edited elsewhere.\n---\nYou help.\n")
	form.Set("description", "Edited in the browser.")
	status, doc, _ := e.Post("/agents/intern", form, csrf)
	if status != http.StatusConflict {
		t.Fatalf("save = %d, want 409", status)
	}
	if find(doc, "conflict") == nil {
		t.Fatal("no conflict message")
	}
	if !strings.Contains(textOf(find(doc, "conflict-disk")), "Edited elsewhere.") ||
		!strings.Contains(textOf(find(doc, "conflict-yours")), "Edited in the browser.") {
		t.Error("the conflict does not show both versions")
	}
	if got, _ := e.Folder.Disk("intern.md"); !strings.Contains(got, "Edited elsewhere.") {
		t.Errorf("the disk version was overwritten:\n%s", got)
	}
	// The re-rendered form carries the disk's hash: saving again overwrites on purpose.
	again := formValues(find(doc, "agent-form"))
	if status, _, _ := e.Post("/agents/intern", again, csrf); status != http.StatusSeeOther {
		t.Fatalf("second save = %d, want 303", status)
	}
	if got, _ := e.Folder.Disk("intern.md"); !strings.Contains(got, "Edited in the browser.") {
		t.Errorf("second save did not write:\n%s", got)
	}
}

// In the conflict view the form holds what the person typed, so the
// warnings beside its fields are those of the typed version, not of the
// file on disk.
func TestAConflictShowsTheTypedVersionsWarningsBesideTheForm(t *testing.T) {
	e := newTestEnv(t, team)
	form, csrf := e.EditForm("intern")
	e.Folder.Edit("intern.md", "---\nname: intern\ndescription: Edited elsewhere.\nsubagents:\n  allow: [ghost]\n---\nYou help.\n")
	form["subagents.allow"] = []string{"phantom"}
	status, doc, _ := e.Post("/agents/intern", form, csrf)
	if status != http.StatusConflict {
		t.Fatalf("save = %d, want 409", status)
	}
	var shown []string
	for _, p := range findAll(doc, "problem-subagents.allow") {
		shown = append(shown, textOf(p))
	}
	if len(shown) != 1 || !strings.Contains(shown[0], `"phantom"`) {
		t.Errorf("beside subagents.allow the conflict shows %q, want the typed version's warning about \"phantom\" only", shown)
	}

	// The same for the raw file view: the form shows the submitted text.
	_, doc = e.Get("/agents/intern")
	raw := formValues(find(doc, "raw-form"))
	e.Folder.Edit("intern.md", "---\nname: intern\ndescription: Edited again.\nsubagents:\n  allow: [ghost]\n---\nYou help.\n")
	raw.Set("raw", "---\nname: intern\ndescription: Typed.\nsubagents:\n  allow: [spectre]\n---\nYou help.\n")
	if status, doc, _ = e.Post("/agents/intern/raw", raw, csrfOf(doc)); status != http.StatusConflict {
		t.Fatalf("raw save = %d, want 409", status)
	}
	shown = nil
	for _, p := range findAll(doc, "problem-subagents.allow") {
		shown = append(shown, textOf(p))
	}
	if len(shown) != 1 || !strings.Contains(shown[0], `"spectre"`) {
		t.Errorf("beside subagents.allow the raw conflict shows %q, want the submitted text's warning about \"spectre\" only", shown)
	}
}

func TestCreatingAnAgentWritesItsFile(t *testing.T) {
	e := newTestEnv(t, team)
	_, doc := e.Get("/agents/new")
	form := formValues(find(doc, "agent-form"))
	form.Set("name", "reviewer")
	form.Set("description", "Reviews drafts.")
	form["subagents.allow"] = []string{"writer", "analyst"}
	form.Set("body", "You review.\n")
	status, _, resp := e.Post("/agents/new", form, csrfOf(doc))
	if status != http.StatusSeeOther || resp.Header.Get("Location") != "/agents/reviewer?saved=1" {
		t.Fatalf("create = %d to %q", status, resp.Header.Get("Location"))
	}
	got, ok := e.Folder.Disk("reviewer.md")
	if !ok {
		t.Fatal("reviewer.md not written")
	}
	d, err := registry.Parse("reviewer.md", []byte(got))
	if err != nil {
		t.Fatal(err)
	}
	a, probs := d.Agent()
	if a.Name != "reviewer" || a.Description != "Reviews drafts." || len(a.Subagents.Rules.Allow) != 2 || len(probs) != 0 {
		t.Errorf("created agent = %+v, problems %v\n%s", a, probs, got)
	}
	if strings.Contains(got, "max_concurrent") || strings.Contains(got, "execution") {
		t.Errorf("defaults were written out:\n%s", got)
	}
	_, page := e.Get("/agents/reviewer?saved=1")
	if find(page, "saved") == nil {
		t.Error("no saved notice after create")
	}
}

func TestCreatingRefusesBadNamesAndExistingFiles(t *testing.T) {
	cases := []struct {
		name, wantStatus string
		status           int
	}{
		{"../escape", "path", http.StatusUnprocessableEntity},
		{"Upper", "letters", http.StatusUnprocessableEntity},
		{"lead", "already exists", http.StatusConflict},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newTestEnv(t, team)
			_, doc := e.Get("/agents/new")
			form := formValues(find(doc, "agent-form"))
			form.Set("name", c.name)
			form.Set("description", "x")
			status, page, _ := e.Post("/agents/new", form, csrfOf(doc))
			if status != c.status {
				t.Fatalf("create %q = %d, want %d", c.name, status, c.status)
			}
			if find(page, "problem-name") == nil {
				t.Errorf("no problem next to the name field")
			}
			if e.Folder.Len() != len(team) {
				t.Errorf("a file was written: %d files", e.Folder.Len())
			}
		})
	}
}

func TestRenameMovesTheFileAndTheName(t *testing.T) {
	e := newTestEnv(t, team)
	_, doc := e.Get("/agents/intern")
	form := formValues(find(doc, "rename-form"))
	form.Set("to", "helper")
	status, _, resp := e.Post("/agents/intern/rename", form, "")
	if status != http.StatusSeeOther || resp.Header.Get("Location") != "/agents/helper?saved=1" {
		t.Fatalf("rename = %d to %q", status, resp.Header.Get("Location"))
	}
	if _, ok := e.Folder.Disk("intern.md"); ok {
		t.Error("intern.md still exists")
	}
	if got, _ := e.Folder.Disk("helper.md"); !strings.Contains(got, "name: helper") {
		t.Errorf("helper.md = %q", got)
	}
}

// A refused rename answers in the agent's editor, as a refused save does:
// the reason in the banner and beside the Rename form, which keeps what was
// typed; it answered a plain error page that led only back to the list.
func TestARefusedRenameAnswersInTheEditor(t *testing.T) {
	for _, c := range []struct {
		to, why string
		status  int
	}{
		{"analyst", "analyst.md already exists", http.StatusConflict},
		{"bad name!", "is not a valid agent name", http.StatusBadRequest},
	} {
		t.Run(c.to, func(t *testing.T) {
			e := newTestEnv(t, team)
			_, doc := e.Get("/agents/intern")
			form := formValues(find(doc, "rename-form"))
			form.Set("to", c.to)
			status, page, _ := e.Post("/agents/intern/rename", form, "")
			if status != c.status || find(page, "agent-form") == nil {
				t.Fatalf("rename to %q = %d, want %d with the editor", c.to, status, c.status)
			}
			if got := textOf(find(page, "not-renamed")); !strings.Contains(got, c.why) {
				t.Errorf("banner %q does not say %q", got, c.why)
			}
			if got := textOf(find(page, "rename-problem")); !strings.Contains(got, c.why) {
				t.Errorf("beside the Rename form: %q", got)
			}
			if got := formValues(find(page, "rename-form")).Get("to"); got != c.to {
				t.Errorf("the Rename field holds %q, want what was typed, %q", got, c.to)
			}
			if got := textOf(find(page, "editor-path")); got != "intern.md" {
				t.Errorf("the editor is %q's, want intern.md's", got)
			}
			if got, _ := e.Folder.Disk("intern.md"); got != team["intern.md"] {
				t.Errorf("intern.md = %q", got)
			}
		})
	}
}

func TestDeleteAsksFirstThenRemovesTheFile(t *testing.T) {
	e := newTestEnv(t, team)
	status, doc := e.Get("/agents/intern/delete")
	if status != http.StatusOK || find(doc, "confirm-delete") == nil {
		t.Fatalf("confirm page = %d", status)
	}
	if _, ok := e.Folder.Disk("intern.md"); !ok {
		t.Fatal("the confirmation page deleted the file")
	}
	form := formValues(find(doc, "delete-form"))
	if status, _, _ := e.Post("/agents/intern/delete", form, ""); status != http.StatusSeeOther {
		t.Fatalf("delete = %d", status)
	}
	if _, ok := e.Folder.Disk("intern.md"); ok {
		t.Error("intern.md still exists")
	}
}

func TestABrokenFileOpensInTheRawViewAndCanBeFixed(t *testing.T) {
	e := newTestEnv(t, map[string]string{"broken.md": "---\nname: broken\n"})
	status, doc := e.Get("/agents/broken")
	if status != http.StatusOK {
		t.Fatalf("GET = %d", status)
	}
	if find(doc, "agent-form") != nil || find(doc, "raw-form") == nil {
		t.Fatal("a broken file should open in the raw view only")
	}
	form := formValues(find(doc, "raw-form"))
	form.Set("raw", "---\r\nname: broken\r\ndescription: Fixed.\r\n---\r\nBody.\r\n")
	if status, page, _ := e.Post("/agents/broken/raw", form, ""); status != http.StatusSeeOther {
		t.Fatalf("raw save = %d: %s", status, textOf(find(page, "main")))
	}
	if got, _ := e.Folder.Disk("broken.md"); got != "---\nname: broken\ndescription: Fixed.\n---\nBody.\n" {
		t.Errorf("raw save wrote %q (CRLF from the browser must become the file's LF)", got)
	}
}

func TestUnknownAgentIsAReadable404(t *testing.T) {
	e := newTestEnv(t, team)
	status, doc := e.Get("/agents/nobody")
	if status != http.StatusNotFound || !strings.Contains(textOf(find(doc, "error-message")), "nobody") {
		t.Fatalf("GET unknown = %d, %q", status, textOf(find(doc, "error")))
	}
	if find(doc, "nav") == nil {
		t.Error("the error page has no navigation")
	}
}

func TestSelfDelegationIsShownNextToTheSubagentsFieldAndNothingIsSaved(t *testing.T) {
	e := newTestEnv(t, team)
	form, csrf := e.EditForm("analyst")
	form["subagents.allow"] = []string{"analyst"}
	status, doc, _ := e.Post("/agents/analyst", form, csrf)
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("save = %d, want 422", status)
	}
	if msg := textOf(find(doc, "problem-subagents.allow")); !strings.Contains(msg, "itself") {
		t.Errorf("problem next to subagents.allow = %q, want self-delegation named", msg)
	}
	if got, _ := e.Folder.Disk("analyst.md"); got != team["analyst.md"] {
		t.Errorf("file was written despite the error:\n%s", got)
	}
}

func TestUnknownNamesAreWarnedNextToTheirFieldsAfterSaving(t *testing.T) {
	e := newTestEnv(t, team)
	form, csrf := e.EditForm("analyst")
	form["subagents.allow"] = []string{"ghost"}
	form["tools.allow"] = []string{"filesystem.teleport"}
	form.Del("tools.any")
	if status, _, _ := e.Post("/agents/analyst", form, csrf); status != http.StatusSeeOther {
		t.Fatalf("save = %d, want 303: unknown names are warnings, not errors", status)
	}
	_, doc := e.Get("/agents/analyst")
	if msg := textOf(find(doc, "problem-subagents.allow")); !strings.Contains(msg, "ghost") {
		t.Errorf("problem next to subagents.allow = %q, want the unknown agent named", msg)
	}
	if msg := textOf(find(doc, "problem-tools.allow")); !strings.Contains(msg, "filesystem.teleport") {
		t.Errorf("problem next to tools.allow = %q, want the unknown tool named", msg)
	}
}

// A form saved with its name cleared, or with another agent's name, is
// refused beside the Name field; the page stays this file's editor (its
// title, its form with what was typed, Run and History of this agent),
// never "Broken file" with the form gone and the edits lost.
func TestARefusedNameKeepsTheFormAndThePageOfThisFile(t *testing.T) {
	for _, typed := range []string{"", "analyst"} {
		t.Run("name "+strconv.Quote(typed), func(t *testing.T) {
			e := newTestEnv(t, team)
			form, csrf := e.EditForm("intern")
			form.Set("name", typed)
			form.Set("description", "Typed, and kept.")
			status, doc, _ := e.Post("/agents/intern", form, csrf)
			if status != http.StatusUnprocessableEntity {
				t.Fatalf("save = %d, want 422", status)
			}
			if got := textOf(find(doc, "editor-title")); got != "intern" {
				t.Errorf("title = %q, want intern", got)
			}
			if find(doc, "agent-form") == nil {
				t.Fatalf("the form is gone: %s", textOf(find(doc, "main")))
			}
			if got := textOf(find(doc, "field-description")); !strings.Contains(got, "Typed, and kept.") {
				t.Errorf("description = %q, want what was typed", got)
			}
			if find(doc, "problem-name") == nil {
				t.Errorf("no problem beside the Name field: %s", textOf(find(doc, "not-saved")))
			}
			if got := attr(find(doc, "run-agent"), "href"); got != "/runs/new?agent=intern" {
				t.Errorf("Run this agent = %q, want intern's", got)
			}
			if got := attr(find(doc, "agent-history"), "href"); got != "/agents/intern/history" {
				t.Errorf("History = %q, want intern's", got)
			}
			if got, _ := e.Folder.Disk("intern.md"); got != team["intern.md"] {
				t.Errorf("a refused save wrote the file:\n%s", got)
			}
		})
	}
}
