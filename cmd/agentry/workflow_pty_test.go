//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY returns a pseudo-terminal's two ends.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

func TestWorkflowRunAsksForMissingInputsOnATerminal(t *testing.T) {
	master, slave := openPTY(t)
	// The answers wait in the terminal's input queue before the command reads them.
	if _, err := master.Write([]byte("Lee\nConsulting\n")); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
	s.stdin = slave
	code := s.main(context.Background(), []string{"workflow", "run", "../../workflows/research-to-proposal.yaml",
		"--input", "company_name=Acme", "--dry-run", "--db", filepath.Join(dir, "t.db")})
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	for _, want := range []string{"contact_name (string, Primary contact at the company): ", "- contact_name = Lee", "- our_services = Consulting"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// workflow new on a terminal saves the workflow on a yes and then, on a
// second yes, runs it, asking for its required input (seed 000: "Execute
// upon confirmation").
func TestWorkflowNewRunsTheSavedWorkflowWhenConfirmed(t *testing.T) {
	master, slave := openPTY(t)
	if _, err := master.Write([]byte("y\ny\nAcme\n")); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
	s.stdin = slave
	code := s.main(context.Background(), []string{"workflow", "new", "three steps: research, identify pains, draft an email",
		"--model", "demo", "--workflows", dir, "--db", filepath.Join(dir, "t.db")})
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	for _, want := range []string{"Save as ", "saved ", "Run it now? [y/N] ", "subject (string", "## Workflow Execution Report", "- Status: COMPLETE"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// workflow new on a terminal, when its workflow is named as one already
// saved, says so before asking (a yes would be wasted) and leaves the saved
// file as it was.
func TestWorkflowNewRefusesToOverwriteASavedWorkflowBeforeAsking(t *testing.T) {
	dir := t.TempDir()
	args := []string{"workflow", "new", "three steps: research, identify pains, draft an email", "--model", "demo", "--workflows", dir}
	s, out, errOut := testSession()
	if code := s.main(context.Background(), append(args, "--yes")); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	m, _ := filepath.Glob(dir + "/*.yaml")
	if len(m) != 1 {
		t.Fatalf("saved %v", m)
	}
	if err := os.WriteFile(m[0], []byte("# edited by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	master, slave := openPTY(t)
	if _, err := master.Write([]byte("y\n")); err != nil {
		t.Fatal(err)
	}
	s, out, errOut = testSession()
	s.stdin = slave
	code := s.main(context.Background(), args)
	if code != 1 || !strings.Contains(errOut.String(), m[0]+" exists; not overwritten") || strings.Contains(out.String(), "Save as") {
		t.Fatalf("second save: exit %d: %s %s", code, out, errOut)
	}
	if b, _ := os.ReadFile(m[0]); string(b) != "# edited by hand\n" {
		t.Fatalf("the saved workflow was overwritten: %q", b)
	}
}
