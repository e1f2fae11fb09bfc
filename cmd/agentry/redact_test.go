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
	code := s.main(context.Background(), []string{"run", "coord", "go", "--agents", agents, "--db", db, "--model", "script:" + sc})
	if code == 0 {
		t.Fatalf("run on an unreachable database exited 0: %s", out)
	}
	if all := out.String() + errOut.String(); strings.Contains(all, "hunter2secret") {
		t.Fatalf("output shows the password:\n%s", all)
	}
	t.Logf("stderr: %s", errOut)
}

// Every command opens the store the same way, and none shows the password
// of a PostgreSQL URL it could not use.
func TestCommandsDoNotShowThePostgresPassword(t *testing.T) {
	db := "postgres://agentry:hunter2secret@127.0.0.1:1/traces?sslmode=disable&connect_timeout=5"
	doc := writeFile(t, t.TempDir(), "run.json", `{"run":{"id":"r1","status":"ok"},"spans":[]}`) // import reads it before the store
	for _, args := range [][]string{{"list"}, {"show", "abc"}, {"import", doc}} {
		s, out, errOut := testSession()
		code := s.main(context.Background(), append([]string{"traces"}, append(args, "--db", db)...))
		all := out.String() + errOut.String()
		if code == 0 || !strings.Contains(all, "postgres://agentry:") {
			t.Errorf("traces %s on an unreachable database: exit %d, output %q; want a failure naming it", args[0], code, all)
		}
		if strings.Contains(all, "hunter2secret") {
			t.Errorf("traces %s shows the password:\n%s", args[0], all)
		}
	}
}
