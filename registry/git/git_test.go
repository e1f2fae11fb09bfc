package git

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// commitFile writes text (or removes the file when text is "") and commits it.
func commitFile(t *testing.T, repo *gogit.Repository, root, rel, text, msg string, at time.Time) {
	t.Helper()
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	if text == "" {
		if _, err := wt.Remove(rel); err != nil {
			t.Fatal(err)
		}
	} else {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := wt.Add(rel); err != nil {
			t.Fatal(err)
		}
	}
	sig := &object.Signature{Name: "Ada", Email: "ada@example.com", When: at}
	if _, err := wt.Commit(msg+"\n\nmore words", &gogit.CommitOptions{Author: sig, Committer: sig}); err != nil {
		t.Fatal(err)
	}
}

func TestHistoryListsTheCommitsThatChangedAFileNewestFirst(t *testing.T) {
	root := t.TempDir()
	repo, err := gogit.PlainInit(root, false)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	commitFile(t, repo, root, "agents/lead.md", "v1\n", "add lead", t0)
	commitFile(t, repo, root, "agents/other.md", "x\n", "add other", t0.Add(time.Hour))
	commitFile(t, repo, root, "agents/lead.md", "v2\n", "sharpen lead", t0.Add(2*time.Hour))
	commitFile(t, repo, root, "agents/lead.md", "", "drop lead", t0.Add(3*time.Hour))
	commitFile(t, repo, root, "agents/lead.md", "v1\n", "bring lead back", t0.Add(4*time.Hour))

	got, err := History(filepath.Join(root, "agents"), "lead.md", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ msg, content string }{
		{"bring lead back", "v1\n"}, {"drop lead", ""}, {"sharpen lead", "v2\n"}, {"add lead", "v1\n"},
	}
	if len(got) != len(want) {
		t.Fatalf("History = %+v", got)
	}
	for i, w := range want {
		if got[i].Message != w.msg || string(got[i].Content) != w.content || got[i].Author != "Ada" || len(got[i].Hash) != 40 {
			t.Errorf("commit %d = %+v (%q), want %s %q", i, got[i], got[i].Content, w.msg, w.content)
		}
	}
	if !got[3].Time.Equal(t0) {
		t.Errorf("first commit at %s, want %s", got[3].Time, t0)
	}
	if two, _ := History(filepath.Join(root, "agents"), "lead.md", 2); len(two) != 2 {
		t.Errorf("limit 2 gave %d commits", len(two))
	}
}

func TestHistoryOutsideARepositorySaysSo(t *testing.T) {
	if _, err := History(t.TempDir(), "lead.md", 0); !errors.Is(err, ErrNoRepository) {
		t.Errorf("err = %v, want ErrNoRepository", err)
	}
	root := t.TempDir()
	if _, err := gogit.PlainInit(root, false); err != nil {
		t.Fatal(err)
	}
	if _, err := History(root, "lead.md", 0); !errors.Is(err, ErrNoRepository) {
		t.Errorf("a repository without commits: %v, want ErrNoRepository", err)
	}
}
