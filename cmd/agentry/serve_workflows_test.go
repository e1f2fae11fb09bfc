package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// servedFolders is `agentry serve` on an agents and a workflows folder,
// with a database of its own, until stop.
type servedFolders struct {
	t      *testing.T
	base   string // http://HOST:PORT
	errOut *lockedBuffer
	cancel context.CancelFunc
	done   chan int
}

func serveFolders(t *testing.T, agents, flows string) *servedFolders {
	t.Helper()
	return serveWith(t, "--agents", agents, "--workflows", flows)
}

// serveWith is `agentry serve` with flags, on a free port and a database
// of its own, until stop.
func serveWith(t *testing.T, flags ...string) *servedFolders {
	t.Helper()
	var out lockedBuffer
	sv := &servedFolders{t: t, errOut: &lockedBuffer{}, done: make(chan int, 1)}
	s := &session{stdin: strings.NewReader(""), stdout: &out, stderr: sv.errOut, getenv: func(string) string { return "" },
		env: func() []string { return nil }}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	sv.cancel = cancel
	go func() {
		sv.done <- s.main(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "t.db")}, flags...))
	}()
	sv.base = strings.TrimSuffix(waitURL(t, &out, sv.done), "/")
	return sv
}

// get is the page at path, which must answer 200.
func (sv *servedFolders) get(path string) string {
	sv.t.Helper()
	resp, err := http.Get(sv.base + path)
	if err != nil {
		sv.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		sv.t.Fatalf("GET %s = %d: %s", path, resp.StatusCode, b)
	}
	return string(b)
}

// stop ends serve, which must exit 0.
func (sv *servedFolders) stop() {
	sv.t.Helper()
	sv.cancel()
	if code := <-sv.done; code != 0 {
		sv.t.Fatalf("serve exited %d: %s", code, sv.errOut.String())
	}
}

// serve watches --workflows DIR, and a workflow that names a registry
// agent breaks at its line when that agent's file goes.
func TestServeWatchesTheWorkflowsFolderAndRechecksItWhenAgentsChange(t *testing.T) {
	agents, flows := t.TempDir(), t.TempDir()
	writeFile(t, agents, "helper.md", "---\nname: helper\ndescription: Helps with things.\n---\nYou help.\n")
	writeFile(t, flows, "assist.yaml", "workflow: {name: assist, description: Lets helper help}\nsteps:\n  - {id: help, agent: helper, input: now}\n")
	sv := serveFolders(t, agents, flows)
	get := func() string { return sv.get("/workflows?partial=table") }
	if page := get(); !strings.Contains(page, "Lets helper help") || strings.Contains(page, "assist.yaml:3:") {
		t.Fatalf("the workflows list does not show assist whole:\n%s", page)
	}
	os.Remove(filepath.Join(agents, "helper.md"))
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(get(), "assist.yaml:3: ") {
		if time.Now().After(deadline) {
			t.Fatalf("removing the agent did not break the workflow at line 3:\n%s", get())
		}
		time.Sleep(50 * time.Millisecond)
	}
	sv.stop()
}

func TestServeRefusesAWorkflowsFolderThatIsNotThere(t *testing.T) {
	var out, errOut lockedBuffer
	s := &session{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" },
		env: func() []string { return nil }}
	code := s.main(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--agents", t.TempDir(), "--workflows", filepath.Join(t.TempDir(), "missing"), "--db", filepath.Join(t.TempDir(), "t.db")})
	if code == 0 || !strings.Contains(errOut.String(), "workflows folder") {
		t.Fatalf("serve with a missing workflows folder = %d, %q", code, errOut.String())
	}
}
