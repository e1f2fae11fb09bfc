package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/url"
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

// opsSite is a folder for a real `agentry serve` process: agents, scripts
// the start form may use, a config, a database.
type opsSite struct {
	dir, db, config string
}

func newOpsSite(t *testing.T, script string) opsSite {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, dir, "agents/coord.md", "---\nname: coord\ndescription: Coordinates.\nsubagents:\n  allow: [leaf]\n---\nYou coordinate.\n")
	writeFile(t, dir, "agents/leaf.md", "---\nname: leaf\ndescription: Does one thing.\n---\nYou do it.\n")
	writeFile(t, dir, "scripts/s.yaml", script)
	site := opsSite{dir: dir, db: filepath.Join(dir, "t.db"),
		config: writeFile(t, dir, "agentry.yaml", "agents: "+filepath.Join(dir, "agents")+"\nserve:\n  script_dir: "+filepath.Join(dir, "scripts")+"\n")}
	return site
}

// serveProcess is a running `agentry serve`.
type serveProcess struct {
	cmd    *exec.Cmd
	base   string
	stderr *lockedBuffer
	exited chan error
}

// start starts the release binary's serve on site with extra flags and
// waits until it listens.
func (site opsSite) start(t *testing.T, flags ...string) *serveProcess {
	t.Helper()
	args := append([]string{"serve", "--config", site.config, "--db", site.db, "--addr", "127.0.0.1:0"}, flags...)
	cmd := exec.Command(mustReleaseBinary(t), args...)
	cmd.Dir = site.dir
	p := &serveProcess{cmd: cmd, stderr: &lockedBuffer{}, exited: make(chan error, 1)}
	cmd.Stderr = p.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := regexp.MustCompile(`http://[^/\s]+`).FindString(sc.Text()); m != "" {
				urls <- m
			}
		}
		p.exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
	})
	select {
	case p.base = <-urls:
		return p
	case err := <-p.exited:
		t.Fatalf("serve exited before listening: %v\n%s", err, p.stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("serve printed no address\n%s", p.stderr.String())
	}
	return nil
}

// startRun starts agent coord from the start form on a script model.
func (p *serveProcess) startRun(t *testing.T, c *http.Client, task string) string {
	t.Helper()
	code, loc, body := postForm(t, c, p.base, "/runs/new", "/runs/new", url.Values{"agent": {"coord"}, "task": {task}, "model": {"script:s.yaml"}})
	if code != http.StatusSeeOther || !strings.HasPrefix(loc, "/runs/") {
		t.Fatalf("start form: %d, Location %q\n%s", code, loc, body)
	}
	return strings.TrimPrefix(loc, "/runs/")
}

func TestMetricsAfterARunShowTheRunItsDelegationsAndTokens(t *testing.T) {
	site := newOpsSite(t, `coord:
  - calls:
      - {tool: delegate, args: {agent: leaf, task: one}}
      - {tool: delegate, args: {agent: leaf, task: two}}
    tokens: {input: 100, output: 10}
  - {say: all done, tokens: {input: 150, output: 20}}
leaf:
  - {say: leaf answer, tokens: {input: 7, output: 3}}
`)
	p := site.start(t, "--log-format", "json")
	c := browser(t)
	id := p.startRun(t, c, "go")
	if run, _ := waitRun(t, site.db, id, time.Minute); run.Status != trace.StatusOK {
		t.Fatalf("run %s = %s, want ok", id, run.Status)
	}
	code, text := get(t, c, p.base+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics = %d", code)
	}
	for _, line := range []string{
		"agentry_runs_started_total 1",
		`agentry_runs_ended_total{status="ok"} 1`,
		`agentry_delegations_total{status="ok"} 2`,
		`agentry_model_calls_total{model="script:s.yaml",status="ok"} 4`,
		`agentry_model_tokens_total{direction="input",model="script:s.yaml"} 264`,
		`agentry_model_tokens_total{direction="output",model="script:s.yaml"} 36`,
		"agentry_registry_errors 0",
		"agentry_approvals_pending 0",
	} {
		if !strings.Contains(text, "\n"+line+"\n") {
			t.Errorf("no line %q in /metrics", line)
		}
	}
	if !regexp.MustCompile(`\nagentry_store_write_duration_seconds_count [1-9]`).MatchString(text) {
		t.Error("no store write timed in /metrics")
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, body := get(t, &http.Client{}, p.base+path); code != http.StatusOK {
			t.Errorf("%s = %d %s", path, code, body)
		}
	}

	// Every line the run wrote carries run_id, agent and span_id.
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := <-p.exited; err != nil {
		t.Fatalf("serve after SIGTERM: %v\n%s", err, p.stderr.String())
	}
	lines := 0
	for _, l := range strings.Split(strings.TrimSpace(p.stderr.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("a log line is not JSON: %q", l)
		}
		if rec["run_id"] != id {
			continue
		}
		lines++
		if rec["agent"] != "coord" || rec["span_id"] == "" || rec["span_id"] == nil {
			t.Errorf("log line of the run without agent or span_id: %s", l)
		}
	}
	if lines < 2 { // "run started" and the runtime's "run ended"
		t.Errorf("%d log lines name the run, want its start and its end:\n%s", lines, p.stderr.String())
	}
}

func TestReadyzFailsWhenTheDatabaseIsUnreadable(t *testing.T) {
	site := newOpsSite(t, "coord: [{say: hi}]\n")
	p := site.start(t)
	if code, body := get(t, &http.Client{}, p.base+"/readyz"); code != http.StatusOK {
		t.Fatalf("/readyz on a fresh server = %d %s", code, body)
	}
	f, err := os.OpenFile(site.db, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("garbage, not SQLite"), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	code, body := get(t, &http.Client{}, p.base+"/readyz")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, `"store":`) || strings.Contains(body, `"store":"ok"`) {
		t.Fatalf("/readyz with the database spoilt = %d %s, want 503 naming the store", code, body)
	}
	if code, _ := get(t, &http.Client{}, p.base+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz = %d: the process is up, only not ready", code)
	}
}

// A SIGTERM lets the runs in flight finish within the grace, cancels the
// rest, writes every span's end, and exits 0.
func TestSIGTERMDrainsRunsAndLeavesCompleteTraces(t *testing.T) {
	// Two scripts: the quick run's leaf answers in 1s, the slow one's in 5 minutes.
	site := newOpsSite(t, `coord:
  - calls: [{tool: delegate, args: {agent: leaf, task: quick}}]
  - {say: done}
leaf:
  - {say: leaf answer, latency: 1s}
`)
	writeFile(t, site.dir, "scripts/slow.yaml", `coord:
  - calls: [{tool: delegate, args: {agent: leaf, task: slow}}]
  - {say: done}
leaf:
  - {say: never, latency: 5m}
`)
	p := site.start(t, "--shutdown-grace", "3s")
	c := browser(t)
	quick := p.startRun(t, c, "quick")
	code, loc, body := postForm(t, c, p.base, "/runs/new", "/runs/new", url.Values{"agent": {"coord"}, "task": {"slow"}, "model": {"script:slow.yaml"}})
	if code != http.StatusSeeOther {
		t.Fatalf("start the slow run: %d\n%s", code, body)
	}
	slow := strings.TrimPrefix(loc, "/runs/")
	waitSpan(t, site.db, slow, "leaf")
	sent := time.Now()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.exited:
		if err != nil {
			t.Fatalf("serve exited with %v after SIGTERM\n%s", err, p.stderr.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("serve did not exit after SIGTERM\n%s", p.stderr.String())
	}
	if waited := time.Since(sent); waited < 2*time.Second {
		t.Errorf("serve exited %s after SIGTERM: it did not give the runs their grace", waited)
	}
	for id, want := range map[string]trace.Status{quick: trace.StatusOK, slow: trace.StatusCancelled} {
		run, spans := waitRun(t, site.db, id, 5*time.Second)
		if run.Status != want {
			t.Errorf("run %s = %s, want %s", id, run.Status, want)
		}
		if len(spans) < 4 {
			t.Errorf("run %s has %d spans, want the coordinator's, its model call, the delegation and the leaf's", id, len(spans))
		}
		for _, sp := range spans {
			if !sp.Status.IsFinal() || sp.EndedAt.IsZero() {
				t.Errorf("run %s: span %s %q left %s after SIGTERM", id, sp.ID, sp.Name, sp.Status)
			}
		}
	}
	if !strings.Contains(p.stderr.String(), "shutting down") {
		t.Errorf("serve's log does not say it shut down:\n%s", p.stderr.String())
	}
}
