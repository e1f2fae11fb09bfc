package main

import (
	"context"
	"strings"
	"testing"
)

// An error that quotes a database URL never shows its password.
func TestRunErrorsDoNotShowTheDatabasePassword(t *testing.T) {
	dir, agents, _, sc := runFixture(t)
	s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
	db := "postgres://agentry:hunter2secret@127.0.0.1:1/traces?sslmode=disable"
	code := runCommand(context.Background(), s, []string{"coord", "go", "--agents", agents, "--db", db, "--model", "script:" + sc})
	if code == 0 {
		t.Fatalf("run on an unreachable database exited 0: %s", out)
	}
	if all := out.String() + errOut.String(); strings.Contains(all, "hunter2secret") {
		t.Fatalf("output shows the password:\n%s", all)
	}
	t.Logf("stderr: %s", errOut)
}
