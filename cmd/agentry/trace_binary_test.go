package main

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// buildTraceTestBinary builds the agentry binary from this tree into the test's
// temp folder, for tests that need real separate processes (a killed run,
// many writers at once). The build cache makes every build after the first
// a link.
func buildTraceTestBinary(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agentry")
	if out, err := exec.Command("go", "build", "-o", path, ".").CombinedOutput(); err != nil {
		t.Fatalf("build agentry: %v\n%s", err, out)
	}
	return path
}
