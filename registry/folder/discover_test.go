package folder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/registry"
)

// Issue 10: pointing the folder at a project finds the agents where Claude
// Code and VS Code keep them, and follows changes there.
func TestAProjectRootServesItsToolsAgentsAndWatchesTheirFolders(t *testing.T) {
	fx := open(t, 0, map[string]string{
		".claude/agents/reviewer.md":      agentText("reviewer", "Claude Code"),
		".github/agents/planner.agent.md": agentText("planner", "VS Code"),
		".github/workflows/ci.md":         agentText("ci", "not an agent"),
		".git/info/x.md":                  agentText("x", "not an agent"),
		"node_modules/pkg/y.md":           agentText("y", "not an agent"),
		"team/writer.md":                  agentText("writer", "plain"),
	})
	s := fx.reg.Snapshot()
	if got := agentNames(s); got != "planner reviewer writer" {
		t.Fatalf("agents = %s", got)
	}
	writeFile(t, fx.dir, ".claude/agents/reviewer.md", agentText("reviewer", "edited"))
	fx.waitFor(t, "an edit in .claude/agents", func(s *registry.Snapshot) bool { return description(s, "reviewer") == "edited" })
	// A tool folder created after start is watched too.
	writeFile(t, fx.dir, ".github/chatmodes/ask.chatmode.md", agentText("ask", "one"))
	fx.waitFor(t, "a new .github/chatmodes folder", func(s *registry.Snapshot) bool { return description(s, "ask") == "one" })
	writeFile(t, fx.dir, ".github/chatmodes/ask.chatmode.md", agentText("ask", "two"))
	fx.waitFor(t, "an edit in the new folder", func(s *registry.Snapshot) bool { return description(s, "ask") == "two" })
	// What the rule skips stays skipped; the sentinel proves the events
	// before it were handled.
	writeFile(t, fx.dir, ".git/info/z.md", agentText("z", "not an agent"))
	writeFile(t, fx.dir, ".github/agents/notes.txt", agentText("notes", "not an agent")) // VS Code reads only *.md there
	writeFile(t, fx.dir, "sentinel.md", agentText("sentinel", "S"))
	s = fx.waitFor(t, "the sentinel", func(s *registry.Snapshot) bool { _, ok := s.Agent("sentinel"); return ok })
	if got := agentNames(s); got != "ask planner reviewer sentinel writer" {
		t.Fatalf("agents = %s", got)
	}
	if err := fx.f.Sync(); err != nil {
		t.Fatal(err)
	}
	if got := agentNames(fx.reg.Snapshot()); got != "ask planner reviewer sentinel writer" {
		t.Fatalf("after Sync, agents = %s", got)
	}
	// The editor can save files in the tools' folders.
	hash := registry.Hash([]byte(agentText("reviewer", "edited")))
	if _, err := fx.f.Write(".claude/agents/reviewer.md", []byte(agentText("reviewer", "saved")), hash); err != nil {
		t.Fatalf("save in .claude/agents: %v", err)
	}
	if _, err := fx.f.Write(".git/x.md", []byte(agentText("x", "X")), ""); err == nil {
		t.Fatal("saved a file into .git")
	}
}

func agentNames(s *registry.Snapshot) string {
	var names []string
	for _, a := range s.Agents() {
		names = append(names, a.Name)
	}
	return strings.Join(names, " ")
}

// Issue 12: a link to /etc/passwd named like an agent showed that file.
func TestSymlinksOutOfTheFolderAreRefusedWithAReason(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.md")
	writeFile(t, outside, "secret.md", agentText("secret", "SECRET CONTENT"))
	dir := t.TempDir()
	writeFile(t, dir, ".shared/real.md", agentText("real", "inside")) // a hidden folder is not loaded itself
	symlink(t, secret, filepath.Join(dir, "at-start.md"))
	symlink(t, filepath.Join(dir, ".shared", "real.md"), filepath.Join(dir, "inside-link.md"))

	assertRefused := func(t *testing.T, s *registry.Snapshot, path string) {
		t.Helper()
		f, ok := s.File(path)
		if !ok || len(f.Problems) != 1 || !strings.Contains(f.Problems[0].Message, "outside the watched folder") || !strings.Contains(f.Problems[0].Message, secret) {
			t.Fatalf("%s: %+v, want one problem naming the link's target outside the folder", path, f)
		}
		if raw, _ := s.Raw(path); strings.Contains(string(raw), "SECRET") {
			t.Fatalf("%s: the raw view shows the link's target: %q", path, raw)
		}
		if _, served := s.Agent("secret"); served {
			t.Fatalf("%s: the agent of the link's target is served", path)
		}
	}

	t.Run("loading without watching", func(t *testing.T) {
		s, err := Load(dir, registry.Options{})
		if err != nil {
			t.Fatal(err)
		}
		assertRefused(t, s, "at-start.md")
		if a, ok := s.Agent("real"); !ok || a.File != "inside-link.md" {
			t.Fatal("a link inside the folder was refused")
		}
	})

	t.Run("opening and watching", func(t *testing.T) {
		reg := registry.New(nil)
		f, err := Open(dir, reg, registry.Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fx := &fixture{dir: dir, reg: reg, f: f}
		ch, cancel := reg.Subscribe()
		defer cancel()
		fx.ch = ch
		assertRefused(t, reg.Snapshot(), "at-start.md")
		if f, _ := reg.Snapshot().File("inside-link.md"); len(f.Problems) != 0 {
			t.Fatalf("a link inside the folder has problems: %+v", f.Problems)
		}

		symlink(t, secret, filepath.Join(dir, "created.md"))
		s := fx.waitFor(t, "the new link", func(s *registry.Snapshot) bool { _, ok := s.File("created.md"); return ok })
		assertRefused(t, s, "created.md")

		// A good agent file replaced by a link stops serving its agent.
		writeFile(t, dir, "swapped.md", agentText("swapped", "good"))
		fx.waitFor(t, "swapped.md", func(s *registry.Snapshot) bool { _, ok := s.Agent("swapped"); return ok })
		tmp := filepath.Join(dir, "swapped.md.tmp")
		symlink(t, secret, tmp)
		if err := os.Rename(tmp, filepath.Join(dir, "swapped.md")); err != nil {
			t.Fatal(err)
		}
		s = fx.waitFor(t, "swapped.md replaced by a link", func(s *registry.Snapshot) bool { _, ok := s.Agent("swapped"); return !ok })
		assertRefused(t, s, "swapped.md")

		// A linked folder is not followed into.
		symlink(t, outside, filepath.Join(dir, "linked-team"))
		writeFile(t, dir, "sentinel.md", agentText("sentinel", "S"))
		s = fx.waitFor(t, "the sentinel", func(s *registry.Snapshot) bool { _, ok := s.Agent("sentinel"); return ok })
		if _, ok := s.File("linked-team/secret.md"); ok {
			t.Fatal("the watcher followed a linked folder out of the agents folder")
		}
	})
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
