package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
)

// A serve that is already running marks the run of an `agentry run`
// process killed with SIGKILL interrupted, without a restart.
func TestServeMarksTheRunOfAKilledCLIProcessInterrupted(t *testing.T) {
	bin := buildTraceTestBinary(t)
	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "slow.md", "---\nname: slow\ndescription: Thinks for a long time\n---\nYou think.\n")
	script := writeFile(t, dir, "script.yaml", "slow:\n  - {latency: 1h, say: never}\n")
	db := filepath.Join(dir, "traces.db")
	env := append(os.Environ(), "AGENTRY_WORKSPACE="+dir)

	base := startServeProcess(t, bin, env, "--agents", agents, "--db", db, "--addr", "127.0.0.1:0")
	run := exec.Command(bin, "run", "slow", "ponder", "--agents", agents, "--db", db, "--model", "script:"+script)
	run.Env = env
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	id := waitForRunningRunID(t, db)
	run.Process.Signal(syscall.SIGKILL)
	run.Wait()

	deadline := time.Now().Add(30 * time.Second) // bounds a broken reaper only
	for {
		doc := exportRunFromServe(t, base, id)
		if doc.Run.Status == trace.StatusInterrupted {
			if len(doc.Spans) == 0 || doc.Spans[0].Status != trace.StatusInterrupted {
				t.Errorf("spans after reaping: %+v, want the open span interrupted", doc.Spans)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s is still %s in serve 30s after its process was killed", id, doc.Run.Status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// startServeProcess starts `agentry serve` and returns its base URL once it listens;
// the process is stopped when the test ends.
func startServeProcess(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Env = env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := regexp.MustCompile(`http://[^/\s]+`).FindString(sc.Text()); m != "" {
				urls <- m
				break
			}
		}
		for sc.Scan() {
		}
	}()
	select {
	case u := <-urls:
		return u
	case <-time.After(30 * time.Second):
		t.Fatal("serve printed no address")
		return ""
	}
}

// waitForRunningRunID returns the ID of the first run recorded as running.
// The store is opened before any run process is killed, so its own
// recovery at Open cannot be what marks the run interrupted.
func waitForRunningRunID(t *testing.T, db string) string {
	t.Helper()
	store, err := openStore(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		page, err := store.Runs(context.Background(), trace.RunFilter{Status: trace.StatusRunning})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Runs) > 0 {
			return page.Runs[0].ID
		}
		if time.Now().After(deadline) {
			t.Fatal("the run never showed up as running")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func exportRunFromServe(t *testing.T, base, id string) trace.Document {
	t.Helper()
	resp, err := http.Get(base + "/runs/" + id + "/export")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc trace.Document
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("export %s: %s, %v", id, resp.Status, err)
	}
	if !strings.EqualFold(doc.Run.ID, id) {
		t.Fatalf("export returned run %q", doc.Run.ID)
	}
	return doc
}

// A serve killed with SIGKILL leaves its runs running, owned by its
// process as a CLI run is by its own: the next process that opens the
// store marks them interrupted, with their open spans.
func TestTheRunsOfAKilledServeAreMarkedInterrupted(t *testing.T) {
	site := newOpsSite(t, "coord:\n  - {latency: 1h, say: never}\n")
	p := site.start(t)
	id := p.startRun(t, browser(t), "ponder")
	if got := waitForRunningRunID(t, site.db); got != id {
		t.Fatalf("running run %s, want %s", got, id)
	}
	waitForSpans(t, site.db, id) // its open root span written, as serve's 50ms flush does
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited

	store, err := openStore(site.db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	doc, err := store.Export(context.Background(), id)
	if err != nil || doc.Run.Status != trace.StatusInterrupted || len(doc.Spans) == 0 || doc.Spans[0].Status != trace.StatusInterrupted {
		t.Errorf("serve's run after serve was killed: %+v %+v, %v; want it and its open span interrupted", doc.Run, doc.Spans, err)
	}
}

// waitForSpans waits until run id has a span in the store.
func waitForSpans(t *testing.T, db, id string) {
	t.Helper()
	store, err := openStore(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if spans, err := store.Spans(context.Background(), id); err == nil && len(spans) > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s recorded no span", id)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
