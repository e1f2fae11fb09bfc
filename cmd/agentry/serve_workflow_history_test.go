package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// serve gives a workflow's page the History that `agentry history
// --workflow` reads: the file's versions, listed under its workflow's name
// (assist) while the page is addressed by its stem (assist-flow), a
// restore button over the folder's writer, and the file's git commits.
func TestServeShowsAWorkflowsHistoryUnderItsNameWithRestoreAndCommits(t *testing.T) {
	root := t.TempDir()
	repo, err := gogit.PlainInit(root, false)
	if err != nil {
		t.Fatal(err)
	}
	agents, flows := filepath.Join(root, "agents"), filepath.Join(root, "workflows")
	writeFile(t, agents, "helper.md", "---\nname: helper\ndescription: Helps with things.\n---\nYou help.\n")
	writeFile(t, flows, "assist-flow.yaml", "workflow: {name: assist, description: Lets helper help}\nsteps:\n  - {id: help, agent: helper, input: now}\n")
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add("workflows/assist-flow.yaml"); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "Ada", Email: "ada@example.com", When: time.Now()}
	if _, err := wt.Commit("add the assist workflow", &gogit.CommitOptions{Author: sig, Committer: sig}); err != nil {
		t.Fatal(err)
	}

	sv := serveFolders(t, agents, flows)
	if page := sv.get("/workflows/assist-flow"); !strings.Contains(page, `href="/workflows/assist-flow/history"`) {
		t.Fatalf("the workflow's page does not link to its History:\n%s", page)
	}
	page := sv.get("/workflows/assist-flow/history")
	for _, want := range []string{"created (3 lines)", "Git commits of assist-flow.yaml", "add the assist workflow"} {
		if !strings.Contains(page, want) {
			t.Fatalf("the History page does not show %q:\n%s", want, page)
		}
	}
	writeFile(t, flows, "assist-flow.yaml", "workflow: {name: assist, description: Lets helper help a lot}\nsteps:\n  - {id: help, agent: helper, input: now}\n")
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		page = sv.get("/workflows/assist-flow/history")
		if strings.Contains(page, "workflow changed") && strings.Contains(page, `data-testid="restore-form"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watcher's change never reached the History page with a restore:\n%s\nserve's log:\n%s", page, sv.errOut.String())
		}
	}
	sv.stop()
}
