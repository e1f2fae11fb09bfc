package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
)

// releaseDir holds the release binary; TestMain removes it when the
// package's tests end (each is about 110 MB).
var releaseDir = sync.OnceValues(func() (string, error) { return os.MkdirTemp("", "agentry-release-") })

// TestMain runs the package's tests and removes the release binary that
// some of them built.
func TestMain(m *testing.M) {
	code := m.Run()
	if dir, err := releaseDir(); err == nil {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// releaseBinary builds agentry once per test process the way make build
// does (trimmed paths, no symbols, a stamped version), for tests that need
// a real process: its start-up, its signals.
var releaseBinary = sync.OnceValues(func() (string, error) {
	dir, err := releaseDir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "agentry")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version=v0.0.0-test", "-o", path, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", &buildError{err, out}
	}
	return path, nil
})

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return "build agentry: " + e.err.Error() + "\n" + string(e.out) }

func mustReleaseBinary(t *testing.T) string {
	t.Helper()
	path, err := releaseBinary()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReleaseBuildStampsItsVersion(t *testing.T) {
	out, err := exec.Command(mustReleaseBinary(t), "--version").CombinedOutput()
	if err != nil || !regexp.MustCompile(`^agentry v0\.0\.0-test[ ,]`).Match(out) {
		t.Fatalf("--version: %v, %q", err, out)
	}
}

// Starting the binary must not start Graphviz's WebAssembly module: only
// the process that draws pays for it (web/diagram/graphviz/PATCH.md). The
// runtime's init trace says how much each package's init allocated; the
// module's start allocates megabytes, a registration a few bytes.
func TestStartingDoesNotCompileGraphviz(t *testing.T) {
	cmd := exec.Command(mustReleaseBinary(t), "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("--version: %v\n%s", err, out)
	}
	lines := regexp.MustCompile(`init github\.com/goccy/go-graphviz\S* @[^,]*, [^,]* clock, (\d+) bytes`).FindAllSubmatch(out, -1)
	if len(lines) == 0 {
		t.Fatalf("no init trace line for go-graphviz in:\n%s", out)
	}
	total := 0
	for _, m := range lines {
		n, _ := strconv.Atoi(string(m[1]))
		total += n
	}
	if total > 64<<10 {
		t.Fatalf("go-graphviz's packages allocated %d bytes at init: the WebAssembly module starts at init again", total)
	}
}
