package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace/sqlite"
)

// A skill's SKILL.md has versions as an agent file does: found when a
// command loads the library, listed by history --skill, restored byte for
// byte as a version of its own.
func TestASkillsEditsAreVersionsThatHistoryListsAndRestores(t *testing.T) {
	dir := t.TempDir()
	env := []string{"AGENTRY_WORKSPACE=" + dir, "AGENTRY_AGENTS=" + filepath.Join(dir, "agents"), "AGENTRY_DB=" + filepath.Join(dir, "trace.db")}
	writeFile(t, dir, "agents/a.md", "---\nname: a\ndescription: d\nskills: [notes]\n---\nx\n")
	first := "---\nname: notes\ndescription: Take notes.\n---\nWrite them down.\n"
	skill := writeFile(t, dir, "skills/notes/SKILL.md", first)
	writeFile(t, dir, "skills/notes/template.md", "# Notes\n")
	skillHistory := func() []versionJSON {
		t.Helper()
		code, out, errOut := cli(t, env, "history", "notes", "--skill", "--json")
		var list []versionJSON
		if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil {
			t.Fatalf("history --skill --json: exit %d, %q, stderr %q: %v", code, out, errOut, err)
		}
		return list
	}
	list := skillHistory()
	if len(list) != 1 || list[0].Hash != registry.Hash([]byte(first)) || list[0].Source != "filesystem" || list[0].Path != "notes/SKILL.md" ||
		list[0].Summary != "created (5 lines)" || !list[0].Current {
		t.Fatalf("first history = %+v", list)
	}
	second := strings.Replace(first, "Take notes.", "Take short notes.", 1)
	writeFile(t, dir, "skills/notes/SKILL.md", second)
	writeFile(t, dir, "skills/notes/template.md", "# Notes, edited\n") // not a version: only SKILL.md is
	if code, _, errOut := cli(t, env, "validate"); code != 0 {
		t.Fatalf("validate: exit %d, %s", code, errOut)
	}
	list = skillHistory()
	if len(list) != 2 || list[0].Hash != registry.Hash([]byte(second)) || list[0].Summary != "description changed" {
		t.Fatalf("history after an edit made while nothing ran = %+v", list)
	}
	code, out, errOut := cli(t, env, "history", "notes", "--skill", "--restore", list[1].Hash[:8])
	if code != 0 || !strings.Contains(out, "restored notes/SKILL.md to version "+list[1].Hash[:12]) {
		t.Fatalf("--restore: exit %d, %q, %q", code, out, errOut)
	}
	if now, _ := os.ReadFile(skill); string(now) != first {
		t.Fatalf("the restored SKILL.md differs from the first version:\n%s", now)
	}
	list = skillHistory()
	if len(list) != 3 || list[0].Hash != registry.Hash([]byte(first)) || list[0].Source != "cli" || !strings.HasPrefix(list[0].Summary, "restore of ") {
		t.Fatalf("history after the restore = %+v", list)
	}
	if code, _, errOut := cli(t, env, "history", "notes", "--skill", "--workflow"); code != 2 || !strings.Contains(errOut, "give one") {
		t.Errorf("--skill with --workflow: exit %d, %q", code, errOut)
	}
}

// A workflow file edited while nothing ran is a version once `workflow
// run` reads the folder, as an agent file is once `run` does.
func TestAWorkflowEditedWhileNothingRanIsAVersionAfterWorkflowRun(t *testing.T) {
	dir, wf, src, env := pipelineWorkspace(t)
	list := func() []versionJSON {
		t.Helper()
		code, out, errOut := cli(t, env, "history", "content-pipeline", "--workflow", "--json")
		var l []versionJSON
		if err := json.Unmarshal([]byte(out), &l); code != 0 || err != nil {
			t.Fatalf("history --workflow: exit %d, %q, %q: %v", code, out, errOut, err)
		}
		return l
	}
	if l := list(); len(l) != 1 {
		t.Fatalf("first history = %+v", l)
	}
	edited := strings.Replace(string(src), `timeout: "20m"`, `timeout: "30m"`, 1)
	if err := os.WriteFile(wf, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := cli(t, env, "workflow", "run", "content-pipeline", "--input", "topic=tea", "--model", "demo", "--json"); code != 0 {
		t.Fatalf("workflow run: exit %d, %s %s", code, out, errOut)
	}
	store, err := sqlite.Open(filepath.Join(dir, "trace.db")) // read without history, which would record it itself
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	l, err := store.Versions(context.Background(), registry.KindWorkflow, "content-pipeline")
	if err != nil || len(l) != 2 || l[0].Hash != registry.Hash([]byte(edited)) || l[0].Source != "filesystem" || l[0].Summary != "workflow changed" {
		t.Fatalf("versions after workflow run = %+v, %v", l, err)
	}
}

// A SKILL.md that is a link out of its folder is refused by the library,
// and its target is no version: what it points at never reaches the trace
// store or the History page.
func TestASkillLinkedOutOfItsFolderIsNoVersion(t *testing.T) {
	dir := t.TempDir()
	env := []string{"AGENTRY_WORKSPACE=" + dir, "AGENTRY_AGENTS=" + filepath.Join(dir, "agents"), "AGENTRY_DB=" + filepath.Join(dir, "trace.db")}
	writeFile(t, dir, "agents/a.md", "---\nname: a\ndescription: d\n---\nx\n")
	secret := writeFile(t, t.TempDir(), "secret.md", "---\nname: evil\ndescription: SECRET-OUTSIDE\n---\nSECRET-OUTSIDE\n")
	if err := os.MkdirAll(filepath.Join(dir, "skills/evil"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "skills/evil/SKILL.md")); err != nil {
		t.Fatal(err)
	}
	cli(t, env, "history", "evil", "--skill") // catches the folders up first
	st, err := sqlite.Open(filepath.Join(dir, "trace.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	vs, err := st.Versions(context.Background(), registry.KindSkill, "evil")
	if err != nil || len(vs) != 0 {
		t.Fatalf("versions of the linked skill = %+v, %v; want none", vs, err)
	}
}
