package filesystem

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/registry/skills"
)

// loadedSkills is a tool.Skills whose loaded folders are fixed.
type loadedSkills []string

func (l loadedSkills) Load(string) (skills.Skill, error) { return skills.Skill{}, tool.ErrDenied }
func (l loadedSkills) Folders() []string                 { return l }

func callWith(t *testing.T, w *Workspace, sk tool.Skills, name string, args any) (string, error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	ctx := tool.WithCall(context.Background(), &tool.Call{Skills: sk})
	for _, tl := range w.Tools() {
		if tl.Spec().Name == name {
			return tl.Call(ctx, raw)
		}
	}
	t.Fatalf("no tool %s", name)
	return "", nil
}

func TestALoadedSkillsFolderIsReadableConfinedAndNeverWritten(t *testing.T) {
	w, base := setup(t)
	skill := filepath.Join(base, "plugins", "docs", "skills", "pdf")
	must(t, os.MkdirAll(filepath.Join(skill, "references"), 0o755))
	must(t, os.WriteFile(filepath.Join(skill, "references", "forms.md"), []byte("the fields"), 0o644))
	must(t, os.WriteFile(filepath.Join(base, "plugins", "docs", "skills", "other.md"), []byte("not this skill's"), 0o644))
	must(t, os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(skill, "leak.txt")))
	sk := loadedSkills{skill}

	out, err := callWith(t, w, sk, "filesystem.read_file", map[string]any{"path": filepath.Join(skill, "references", "forms.md")})
	if err != nil || out != "the fields" {
		t.Fatalf("read a loaded skill's file: %q %v", out, err)
	}
	out, err = callWith(t, w, sk, "filesystem.list_dir", map[string]any{"path": skill})
	if err != nil || !strings.Contains(out, "references/") {
		t.Fatalf("list a loaded skill's folder: %q %v", out, err)
	}
	for _, p := range []string{
		filepath.Join(skill, "..", "other.md"), // beside the skill
		filepath.Join(skill, "leak.txt"),       // a link out of it
		filepath.Join(base, "secret.txt"),      // anywhere else
	} {
		if out, err := callWith(t, w, sk, "filesystem.read_file", map[string]any{"path": p}); err == nil {
			t.Errorf("read %s: %q; want a refusal", p, out)
		}
	}
	if _, err := callWith(t, w, nil, "filesystem.read_file", map[string]any{"path": filepath.Join(skill, "references", "forms.md")}); err == nil || !strings.Contains(err.Error(), "skill you loaded") {
		t.Errorf("without the skill loaded: %v", err)
	}
	if _, err := callWith(t, w, sk, "filesystem.write_file", map[string]any{"path": filepath.Join(skill, "x.md"), "content": "x"}); err == nil {
		t.Error("wrote into a skill's folder")
	}
}
