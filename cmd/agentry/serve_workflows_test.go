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

// serve watches --workflows DIR, and a workflow that names a registry
// agent breaks at its line when that agent's file goes.
func TestServeWatchesTheWorkflowsFolderAndRechecksItWhenAgentsChange(t *testing.T) {
	agents, flows := t.TempDir(), t.TempDir()
	writeFile(t, agents, "helper.md", "---\nname: helper\ndescription: Helps with things.\n---\nYou help.\n")
	writeFile(t, flows, "assist.yaml", "workflow: {name: assist, description: Lets helper help}\nsteps:\n  - {id: help, agent: helper, input: now}\n")
	var out, errOut lockedBuffer
	s := &session{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" },
		env: func() []string { return nil }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- s.main(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--agents", agents, "--workflows", flows, "--db", filepath.Join(t.TempDir(), "t.db")})
	}()
	base := strings.TrimSuffix(waitURL(t, &out, done), "/")
	get := func() string {
		resp, err := http.Get(base + "/workflows?partial=table")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
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
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}
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
