package folder

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/skills"
)

// A skills root hands on its SKILL.md changes as versions of the skill's
// id: the watcher's and a save's; the skill's other files are not versions.
func TestASkillsSKILLmdChangesAreHandedOnByTheSkillsId(t *testing.T) {
	dir := t.TempDir()
	skill := func(desc string) string {
		return "---\nname: release-notes\ndescription: " + desc + "\n---\nBody.\n"
	}
	writeFile(t, dir, "notes/SKILL.md", skill("one")) // the folder's name is not the id
	writeFile(t, dir, "notes/template.md", "# T\n")
	cat := skills.NewCatalog()
	log := &changeLog{ch: make(chan struct{}, 1)}
	f, err := OpenContents(dir, VersionedSkills(cat, skills.Root{Label: "skills", Kind: skills.RootSkills, Dir: dir}, log.on), Config{Debounce: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })

	writeFile(t, dir, "notes/template.md", "# T, edited\n")
	if err := os.WriteFile(filepath.Join(dir, "notes", "SKILL.md"), []byte(skill("two")), 0o644); err != nil {
		t.Fatal(err)
	}
	got := log.waitLen(t, 1)
	if c := got[0]; c.Kind != registry.KindSkill || c.Name != "release-notes" || c.Path != "notes/SKILL.md" || string(c.Data) != skill("two") || c.Source != registry.SourceFiles {
		t.Fatalf("the outside write was handed on as %+v", c)
	}
	if _, err := Sourced(f, registry.SourceWeb).Write("notes/SKILL.md", []byte(skill("three")), registry.Hash([]byte(skill("two")))); err != nil {
		t.Fatal(err)
	}
	got = log.waitLen(t, 2)
	if c := got[1]; c.Name != "release-notes" || c.Source != registry.SourceWeb || string(c.Data) != skill("three") {
		t.Fatalf("the save was handed on as %+v", c)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	for _, c := range log.all() {
		if c.Path != "notes/SKILL.md" {
			t.Errorf("a skill's other file was handed on: %+v", c)
		}
	}
	if n := len(log.all()); n != 2 {
		t.Errorf("%d changes handed on, want 2: %+v", n, log.all())
	}
}

// A SKILL.md deleted in the batch that changes another file of its skill
// is a deletion: only SKILL.md files are versions, so the other file is no
// rename of it that would keep the skill's history going.
func TestASkillsDeletionIsHandedOnWhenItsOtherFilesChangeWithIt(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "notes/SKILL.md", "---\nname: notes\ndescription: d\n---\nBody.\n")
	writeFile(t, dir, "notes/template.md", "# T\n")
	log := &changeLog{ch: make(chan struct{}, 1)}
	c := VersionedSkills(skills.NewCatalog(), skills.Root{Label: "skills", Kind: skills.RootSkills, Dir: dir}, log.on)
	if err := c.Load(os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	c.Apply([]registry.Change{{Path: "notes/SKILL.md", Deleted: true}, {Path: "notes/template.md", Data: []byte("# T, edited\n")}})
	got := log.all()
	if len(got) != 1 || !got[0].Deleted || got[0].Name != "notes" || got[0].Path != "notes/SKILL.md" {
		t.Fatalf("handed on %+v, want the SKILL.md's deletion alone", got)
	}
}
