package main

import (
	"strings"
	"testing"
	"time"
)

// serveHere is `agentry serve` in dir (the test's working folder), on its
// agents/ folder and nothing else configured, until stop.
func serveHere(t *testing.T, dir string) *servedFolders {
	t.Helper()
	t.Chdir(dir)
	return serveWith(t, "--agents", "agents")
}

// waitPage waits until the page at path shows want; the deadline only
// turns a hang into a failure.
func (sv *servedFolders) waitPage(path, want, what string) {
	sv.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for page := sv.get(path); !strings.Contains(page, want); page = sv.get(path) {
		if time.Now().After(deadline) {
			sv.t.Fatalf("%s does not show on %s:\n%s", what, path, page)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Folders made while serve runs are picked up at once: a skill in a new
// .claude/skills, the first plugin added (its skills and agents), and a
// workflows/ and evals/ folder made for the first time.
func TestServePicksUpFoldersMadeAfterItStarted(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "agents/helper.md", "---\nname: helper\ndescription: Helps with things.\n---\nYou help.\n")
	sv := serveHere(t, dir)
	if page := sv.get("/workflows"); strings.Contains(page, "no workflows folder") {
		t.Fatalf("a missing default workflows folder is not awaited:\n%s", page)
	}

	writeFile(t, dir, ".claude/skills/notes/SKILL.md", "---\nname: notes\ndescription: Keeps tidy notes of late arrivals.\n---\nWrite notes.\n")
	sv.waitPage("/skills", "Keeps tidy notes of late arrivals", "a skill made in a new .claude/skills")

	if code, out, errOut := cli(t, nil, "plugins", "add", marketDir); code != 0 {
		t.Fatalf("plugins add: exit %d\n%s%s", code, out, errOut)
	}
	sv.waitPage("/skills", "Summarise CSV files", "a skill of the first plugin added")
	sv.waitPage("/agents", "Writes documents from notes", "an agent of the first plugin added")

	writeFile(t, dir, "workflows/assist.yaml", "workflow: {name: assist, description: Lets a late helper help}\nsteps:\n  - {id: help, agent: helper, input: now}\n")
	sv.waitPage("/workflows?partial=table", "Lets a late helper help", "a workflow in a new workflows folder")

	writeFile(t, dir, "evals/late.yaml", "agent: helper\ndescription: Does a late suite show?\ncases:\n  - {name: one, task: hi}\n")
	sv.waitPage("/evals", `data-name="late"`, "a suite in a new evals folder")
	sv.stop()
}
