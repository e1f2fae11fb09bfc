package folder

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/skills"
)

// TestPluginAgentsJoinTheRegistryPrefixedWhereIDsCollide runs both
// watchers on real folders: the agents folder and a plugins folder whose
// plugins ship an agent the folder has too, and one only they have.
func TestPluginAgentsJoinTheRegistryPrefixedWhereIDsCollide(t *testing.T) {
	agents, plugins := t.TempDir(), t.TempDir()
	writeFile(t, agents, "reviewer.md", agentText("reviewer", "r"))
	writeFile(t, plugins, "git/agents/reviewer.md", agentText("reviewer", "r"))
	writeFile(t, plugins, "git/agents/committer.md", agentText("committer", "c"))
	writeFile(t, plugins, "git/skills/x/SKILL.md", "not an agent")
	reg := registry.New(nil)
	changed, stop := reg.Subscribe()
	defer stop()
	fa, err := Open(agents, reg, registry.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fa.Close()
	abs, _ := resolve(plugins)
	fp, err := OpenContents(plugins, PluginAgents(reg, abs), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer fp.Close()
	want := func(ids ...string) {
		t.Helper()
		timeout := time.After(waitLimit)
		for {
			var got []string
			for _, a := range reg.Snapshot().Agents() {
				got = append(got, a.Name)
			}
			if slices.Equal(got, ids) {
				return
			}
			select {
			case <-changed:
			case <-timeout:
				t.Fatalf("agents %v; want %v", got, ids)
			}
		}
	}
	want("committer", "git.reviewer", "reviewer")
	s := reg.Snapshot()
	if s.PluginOf("git.reviewer") != "git" || s.PluginOf("reviewer") != "" {
		t.Errorf("plugins: %q %q", s.PluginOf("git.reviewer"), s.PluginOf("reviewer"))
	}
	f, ok := s.File(filepath.ToSlash(filepath.Join(abs, "git/agents/committer.md")))
	if !ok || f.Plugin != "git" || f.Agent != "committer" {
		t.Errorf("plugin file: %+v %v", f, ok)
	}
	// The folder's agent goes: the plugin's takes the plain id back.
	if err := os.Remove(filepath.Join(agents, "reviewer.md")); err != nil {
		t.Fatal(err)
	}
	want("committer", "reviewer")
	if reg.Snapshot().PluginOf("reviewer") != "git" {
		t.Error("reviewer should now be the plugin's")
	}
	// A full reload of the agents folder keeps the plugins' agents.
	if err := fa.Sync(); err != nil {
		t.Fatal(err)
	}
	want("committer", "reviewer")
}

// TestSkillsFolderIsHotReloaded watches a skills folder: a new skill, an
// edit, a reference file that appears, and a deleted skill show up in the
// catalog without a restart.
func TestSkillsFolderIsHotReloaded(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "pdf/SKILL.md", "---\nname: pdf\ndescription: first\n---\nSee [forms](references/forms.md).\n")
	cat := skills.NewCatalog()
	changed, stop := cat.Subscribe()
	defer stop()
	abs, _ := resolve(dir)
	f, err := OpenContents(dir, cat.Add(skills.Root{Label: "skills", Kind: skills.RootSkills, Dir: abs}), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	until := func(what string, ok func(*skills.Library) bool) {
		t.Helper()
		timeout := time.After(waitLimit)
		for !ok(cat.Snapshot()) {
			select {
			case <-changed:
			case <-timeout:
				t.Fatalf("%s: library %+v", what, cat.Snapshot().Files())
			}
		}
	}
	until("the skill loads with its missing reference", func(l *skills.Library) bool {
		s, ok := l.Skill("pdf")
		return ok && s.Description == "first" && len(l.Problems()) == 1
	})
	writeFile(t, dir, "pdf/references/forms.md", "fields")
	until("the reference appears", func(l *skills.Library) bool {
		s, _ := l.Skill("pdf")
		return len(l.Problems()) == 0 && len(s.Files) == 1
	})
	writeFile(t, dir, "pdf/SKILL.md", "---\nname: pdf\ndescription: second\n---\nSee [forms](references/forms.md).\n")
	writeFile(t, dir, "xlsx/SKILL.md", "---\nname: xlsx\ndescription: sheets\n---\nBody.\n")
	until("the edit and the new skill", func(l *skills.Library) bool {
		s, _ := l.Skill("pdf")
		_, x := l.Skill("xlsx")
		return s.Description == "second" && x
	})
	if err := os.RemoveAll(filepath.Join(dir, "pdf")); err != nil {
		t.Fatal(err)
	}
	until("the deleted skill goes", func(l *skills.Library) bool {
		_, ok := l.Skill("pdf")
		return !ok && len(l.Skills()) == 1
	})
}
