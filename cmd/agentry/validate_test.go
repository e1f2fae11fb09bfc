package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestValidateShippedAgentsHaveNoErrors(t *testing.T) {
	s, out, errOut := testSession()
	if code := s.main(context.Background(), []string{"validate", "--agents", "../../agents", "--json"}); code != 0 {
		t.Fatalf("exit %d; stdout %s stderr %s", code, out, errOut)
	}
	var problems []map[string]any
	if err := json.Unmarshal(out.Bytes(), &problems); err != nil {
		t.Fatalf("validate --json printed %q: %v", out, err)
	}
	for _, p := range problems {
		if p["severity"] == "error" {
			t.Errorf("shipped agent has an error: %v", p)
		}
	}
}

func TestValidateReportsBrokenFileAndKeepsTheOthers(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "good.md", "---\nname: good\ndescription: Works.\n---\nHello.\n")
	writeFile(t, dir, "nested/broken.md", "---\nname: broken\ndescription: x\nsubagents:\n  max_concurrent: \"three\"\n---\nBody\n")
	s, out, _ := testSession()
	code := s.main(context.Background(), []string{"validate", "--agents", dir, "--json"})
	if code != 1 {
		t.Fatalf("exit %d, want 1 for a file with an error; output %s", code, out)
	}
	var problems []struct {
		File, Agent, Severity, Message string
		Line                           int
	}
	if err := json.Unmarshal(out.Bytes(), &problems); err != nil {
		t.Fatalf("validate --json printed %q: %v", out, err)
	}
	found := false
	for _, p := range problems {
		if p.File == "nested/broken.md" && p.Severity == "error" && p.Line == 5 && strings.Contains(p.Message, "max_concurrent") {
			found = true
		}
		if p.File == "good.md" {
			t.Errorf("good.md has a problem: %+v", p)
		}
	}
	if !found {
		t.Errorf("no error for nested/broken.md line 5 about max_concurrent in %+v", problems)
	}

	s, out, _ = testSession()
	s.main(context.Background(), []string{"validate", "--agents", dir})
	if text := out.String(); !strings.Contains(text, "nested/broken.md:5:") || !strings.Contains(text, ": 1 error, 0 warnings") {
		t.Errorf("human output = %q, want file:line and a count", text)
	}
}

func TestValidateUsageAndMissingFolder(t *testing.T) {
	s, _, errOut := testSession()
	if code := s.main(context.Background(), []string{"validate", "--agents", t.TempDir() + "/nope"}); code != 2 {
		t.Errorf("missing folder: exit %d, want 2", code)
	}
	if !strings.Contains(errOut.String(), "nope") {
		t.Errorf("stderr = %q, want the folder named", errOut)
	}
	s, _, _ = testSession()
	if code := s.main(context.Background(), []string{"validate", "extra"}); code != 2 {
		t.Errorf("extra argument: exit %d, want 2", code)
	}
	s, _, _ = testSession()
	if code := s.main(context.Background(), []string{"frobnicate"}); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
}

func TestABrokenConfigExitsTwoNotOne(t *testing.T) {
	cfgFile := writeFile(t, t.TempDir(), "agentry.yaml", "delegation: {bogus: 1}\n")
	agents := []string{"--agents", "../../agents"}
	for _, cmd := range [][]string{append([]string{"validate"}, agents...), append([]string{"permissions", "x"}, agents...),
		append([]string{"run", "x", "task"}, agents...), {"traces", "list"}} {
		s, _, errOut := testSession()
		code := s.main(context.Background(), append(cmd, "--config", cfgFile))
		if code != 2 || !strings.Contains(errOut.String(), "bogus") {
			t.Errorf("%s with a bad config: exit %d, stderr %q; want 2 and the key named", cmd[0], code, errOut)
		}
	}
}

// TestValidateWithAnUnreadableTraceDatabaseWarnsAndChecksTheAgents: the
// versions validate records on the way are a side job; a database it
// cannot open is a warning naming it, and the check itself still answers.
func TestValidateWithAnUnreadableTraceDatabaseWarnsAndChecksTheAgents(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "agents/good.md", "---\nname: good\ndescription: Works.\n---\nHello.\n")
	writeFile(t, dir, "agentry.db", "this is a text file, not a SQLite database\n")
	code, out, errOut := cli(t, []string{"AGENTRY_DB=" + dir + "/agentry.db"}, "validate", "--agents", dir+"/agents")
	if code != 0 || !strings.Contains(out, "1 agent") {
		t.Fatalf("exit %d, stdout %q, want 0 and the agent counted", code, out)
	}
	if !strings.Contains(errOut, "versions of the agent files not recorded") || !strings.Contains(errOut, "agentry.db") {
		t.Errorf("stderr = %q, want a warning that names the database", errOut)
	}
}
