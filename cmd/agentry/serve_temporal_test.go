package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"

	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/sqlite"
)

// temporalSite is a folder of agents whose models are a script, a trace
// database, and the environment that puts every command on the Temporal
// server at addr.
type temporalSite struct {
	dir, agents, db string
	env             []string
}

func newTemporalSite(t *testing.T, addr, namespace, script string) temporalSite {
	t.Helper()
	dir := t.TempDir()
	sc := writeFile(t, dir, "script.yaml", script)
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "coord.md", "---\nname: coord\ndescription: Leads.\nmodel: script:"+sc+"\nsubagents: {allow: [leaf]}\n---\nLead.\n")
	writeFile(t, agents, "leaf.md", "---\nname: leaf\ndescription: Answers.\nmodel: script:"+sc+"\n---\nAnswer.\n")
	writeFile(t, filepath.Join(dir, "workflows"), "pair.yaml", pairFlow)
	writeFile(t, filepath.Join(dir, "workflows"), "slow.yaml", "workflow: {name: slow, description: One slow step}\n"+
		"agents:\n  sleeper: {prompt: Sleep}\nsteps:\n  - {id: nap, agent: sleeper}\n")
	return temporalSite{dir: dir, agents: agents, db: filepath.Join(dir, "traces.db"), env: []string{
		"AGENTRY_MODELS__DEFAULT=script:" + sc, "AGENTRY_WORKFLOWS=" + filepath.Join(dir, "workflows"),
		"AGENTRY_WORKSPACE=" + dir, "AGENTRY_ENGINE=temporal", "AGENTRY_TEMPORAL__ADDRESS=" + addr,
		"AGENTRY_TEMPORAL__NAMESPACE=" + namespace, "AGENTRY_TEMPORAL__TASK_QUEUE=" + namespace}}
}

// pairFlow is a workflow of two inline agents, one after the other; the
// site's script answers for them.
const pairFlow = `workflow: {name: pair, description: Two steps}
agents:
  opener: {prompt: "Open {{inputs.topic}}"}
  closer: {prompt: "Close {{steps.open.output}}"}
inputs:
  - {name: topic, type: string, required: true}
steps:
  - {id: open, agent: opener}
  - {id: close, agent: closer}
`

// startWorker runs `agentry worker` in this process until the test ends.
func (s temporalSite) startWorker(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut lockedBuffer
	sess, _, _ := testSession(s.env...)
	sess.stdout, sess.stderr = &out, &errOut
	done := make(chan int, 1)
	go func() { done <- sess.main(ctx, []string{"worker", "--agents", s.agents, "--db", s.db}) }()
	t.Cleanup(func() { cancel(); <-done })
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "agentry worker: serving") {
		select {
		case code := <-done:
			t.Fatalf("worker exited %d: %s", code, errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("worker not serving after 30 s: %s", errOut.String())
		}
	}
}

// startServe runs `agentry serve` in this process and returns its base URL
// and a stop function that waits for it to exit.
func (s temporalSite) startServe(t *testing.T, extra ...string) (string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut lockedBuffer
	sess, _, _ := testSession(s.env...)
	sess.stdout, sess.stderr = &out, &errOut
	done := make(chan int, 1)
	go func() {
		done <- sess.main(ctx, append([]string{"serve"}, append([]string{"--addr", "127.0.0.1:0", "--agents", s.agents, "--db", s.db}, extra...)...))
	}()
	base := strings.TrimSuffix(waitURL(t, &out, done), "/")
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve exited %d: %s", code, errOut.String())
		}
	}
	t.Cleanup(stop)
	return base, stop
}

// browser is an HTTP client that keeps cookies and does not follow
// redirects, so a test sees where a form sends it.
func browser(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

var csrfRE = regexp.MustCompile(`name="csrf-token" content="([^"]+)"`)

// postForm loads page (for its CSRF token) and posts form to action; it
// returns the response's status, Location and body.
func postForm(t *testing.T, c *http.Client, base, page, action string, form url.Values) (int, string, string) {
	t.Helper()
	_, body := get(t, c, base+page)
	m := csrfRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no CSRF token on %s", page)
	}
	form.Set("_csrf", m[1])
	resp, err := c.PostForm(base+action, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(b)
}

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitRun waits until run id has a final status in db and returns it with
// its spans.
func waitRun(t *testing.T, db, id string, within time.Duration) (trace.Run, []trace.Span) {
	t.Helper()
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	deadline := time.Now().Add(within)
	for {
		run, err := store.Run(context.Background(), id)
		if err == nil && run.Status.IsFinal() {
			spans, err := store.Spans(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			return run, spans
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s not ended after %s: %+v (%v)", id, within, run, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The start form submits to Temporal: a worker runs the run, the run page
// reads it from the store the worker writes, Cancel cancels the workflow,
// and stopping serve leaves a durable run going.
func TestTheStartFormRunsOnTemporal(t *testing.T) {
	addr := temporaltest.Start(t, "agentry-web")
	site := newTemporalSite(t, addr, "agentry-web", `coord:
  - calls: [{tool: delegate, args: {agent: leaf, task: one}}]
  - {say: all done, latency: 1500ms}
leaf:
  - {say: leaf answer, latency: 1500ms}
opener: [{say: opened}]
sleeper: [{say: awake, latency: 20s}]
closer: [{say: closed, latency: 500ms}]
`)
	site.startWorker(t)
	base, stopServe := site.startServe(t)
	c := browser(t)
	// Ready means Temporal answers too (engine: temporal).
	if code, body := get(t, c, base+"/readyz"); code != http.StatusOK || !strings.Contains(body, `"temporal":"ok"`) {
		t.Errorf("/readyz on Temporal = %d %s", code, body)
	}
	start := func() string {
		t.Helper()
		code, loc, body := postForm(t, c, base, "/runs/new", "/runs/new", url.Values{"agent": {"coord"}, "task": {"go"}})
		if code != http.StatusSeeOther || !strings.HasPrefix(loc, "/runs/") {
			t.Fatalf("start form: %d, Location %q\n%s", code, loc, body)
		}
		return strings.TrimPrefix(loc, "/runs/")
	}

	id := start()
	code, page := get(t, c, base+"/runs/"+id)
	if code != http.StatusOK || !strings.Contains(page, `data-testid="cancel-run"`) {
		t.Fatalf("the run page of a going run: %d, cancel button %v", code, strings.Contains(page, "cancel-run"))
	}
	run, spans := waitRun(t, site.db, id, time.Minute)
	agents := map[string]int{}
	for _, sp := range spans {
		if sp.Kind == trace.KindInvokeAgent {
			agents[sp.Agent]++
		}
	}
	if run.Status != trace.StatusOK || run.Result != "all done" || agents["coord"] != 1 || agents["leaf"] != 1 {
		t.Fatalf("run = %s %q, invocations %v; want ok, all done, coord and leaf once", run.Status, run.Result, agents)
	}
	if _, page = get(t, c, base+"/runs/"+id); !strings.Contains(page, "all done") {
		t.Errorf("the run page does not show the result")
	}
	if st := waitWorkflow(t, addr, "agentry-web", id); st != enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
		t.Errorf("workflow %s is %s, want completed: the run did not go through Temporal", id, st)
	}

	t.Run("Cancel cancels the workflow", func(t *testing.T) {
		id := start()
		waitSpan(t, site.db, id, "leaf")
		code, _, body := postForm(t, c, base, "/runs/"+id, "/runs/"+id+"/cancel", url.Values{})
		if code != http.StatusSeeOther {
			t.Fatalf("cancel: %d\n%s", code, body)
		}
		run, spans := waitRun(t, site.db, id, time.Minute)
		if run.Status != trace.StatusCancelled {
			t.Fatalf("cancelled run ended %s (%s)", run.Status, run.Error)
		}
		if st := waitWorkflow(t, addr, "agentry-web", id); st == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			t.Errorf("workflow %s still running after Cancel", id)
		}
		for _, sp := range spans {
			if !sp.Status.IsFinal() {
				t.Errorf("span %s of %s left %s", sp.Name, sp.Agent, sp.Status)
			}
		}
	})

	t.Run("the workflow start form runs the workflow on Temporal", func(t *testing.T) {
		code, loc, body := postForm(t, c, base, "/workflows/pair/run", "/workflows/pair/run", url.Values{"input.topic": {"durability"}})
		if code != http.StatusSeeOther || !strings.HasPrefix(loc, "/runs/") {
			t.Fatalf("workflow start form: %d, Location %q\n%s", code, loc, body)
		}
		id := strings.TrimPrefix(loc, "/runs/")
		run, spans := waitRun(t, site.db, id, time.Minute)
		steps := 0
		for _, sp := range spans {
			if sp.Kind == trace.KindWorkflowStep && sp.Status == trace.StatusOK {
				steps++
			}
		}
		if run.Status != trace.StatusOK || run.Agent != "pair" || run.Result != "closed" || steps != 2 {
			t.Fatalf("workflow run = %s %s %q with %d steps ok; want ok pair \"closed\" with 2", run.Status, run.Agent, run.Result, steps)
		}
		if st := waitWorkflow(t, addr, "agentry-web", id); st != enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
			t.Errorf("workflow %s is %s, want completed", id, st)
		}
	})

	t.Run("Cancel cancels a workflow run and its agents", func(t *testing.T) {
		code, loc, body := postForm(t, c, base, "/workflows/slow/run", "/workflows/slow/run", url.Values{})
		if code != http.StatusSeeOther {
			t.Fatalf("workflow start form: %d\n%s", code, body)
		}
		id := strings.TrimPrefix(loc, "/runs/")
		waitSpan(t, site.db, id, "sleeper")
		if code, _, body := postForm(t, c, base, "/runs/"+id, "/runs/"+id+"/cancel", url.Values{}); code != http.StatusSeeOther {
			t.Fatalf("cancel: %d\n%s", code, body)
		}
		run, spans := waitRun(t, site.db, id, 15*time.Second)
		if run.Status != trace.StatusCancelled {
			for _, sp := range spans {
				t.Logf("%s %s %s %s %v", sp.Kind, sp.Name, sp.Status, sp.Error, sp.Attributes["step_status"])
			}
			t.Fatalf("cancelled workflow run ended %s (%s)", run.Status, run.Error)
		}
		for _, sp := range spans {
			if !sp.Status.IsFinal() || (sp.Kind == trace.KindInvokeAgent && sp.Status != trace.StatusCancelled) {
				t.Errorf("span %s of %s ended %s", sp.Name, sp.Agent, sp.Status)
			}
		}
	})

	t.Run("a run outlives the serve that started it", func(t *testing.T) {
		id := start()
		stopServe()
		if run, _ := waitRun(t, site.db, id, time.Minute); run.Status != trace.StatusOK {
			t.Fatalf("run ended %s (%s) after serve stopped; want ok", run.Status, run.Error)
		}
	})
}

// workflowStatus is the status of workflow id on the Temporal server.
func workflowStatus(t *testing.T, addr, namespace, id string) enumspb.WorkflowExecutionStatus {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: addr, Namespace: namespace, Logger: log.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d, err := c.DescribeWorkflowExecution(context.Background(), id, "")
	if err != nil {
		t.Fatalf("workflow %s: %v", id, err)
	}
	return d.WorkflowExecutionInfo.Status
}

// waitWorkflow waits until workflow id has ended and returns its status:
// the run's record is final a moment before its workflow is.
func waitWorkflow(t *testing.T, addr, namespace, id string) enumspb.WorkflowExecutionStatus {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st := workflowStatus(t, addr, namespace, id)
		if st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING || time.Now().After(deadline) {
			return st
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitSpan waits until agent's invocation has started in run id.
func waitSpan(t *testing.T, db, id, agent string) {
	t.Helper()
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		spans, _ := store.Spans(context.Background(), id)
		for _, sp := range spans {
			if sp.Kind == trace.KindInvokeAgent && sp.Agent == agent {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s never started in run %s", agent, id)
}

// `run --continue` and `chat` on Temporal: each message is a run on the
// workers, in one conversation kept in the trace store; the run page's
// reply box too.
func TestConversationsRunOnTemporal(t *testing.T) {
	addr := temporaltest.Start(t, "agentry-conv")
	site := newTemporalSite(t, addr, "agentry-conv", "leaf: [{say: noted}]\ncoord: [{say: fine}]\n")
	site.startWorker(t)
	args := []string{"--agents", site.agents, "--db", site.db}
	code, out, errOut := cli(t, site.env, append([]string{"run", "leaf", "first", "--json"}, args...)...)
	var first struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(out), &first); code != 0 || err != nil {
		t.Fatalf("run: exit %d, %q %s", code, out, errOut)
	}
	code, out, errOut = cli(t, site.env, append([]string{"run", "--continue", first.RunID, "second", "--json"}, args...)...)
	var second struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(out), &second); code != 0 || err != nil || second.RunID == first.RunID {
		t.Fatalf("run --continue: exit %d, %q %s", code, out, errOut)
	}
	store, err := sqlite.Open(site.db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	conv, err := store.ConversationOf(t.Context(), second.RunID)
	if err != nil || conv != first.RunID {
		t.Fatalf("the follow-up's conversation = %q (%v), want %s", conv, err, first.RunID)
	}
	msgs, _ := store.ConversationMessages(t.Context(), conv)
	var said []string
	for _, m := range msgs {
		said = append(said, m.Role+":"+m.Content)
	}
	if got := strings.Join(said, " "); got != "user:first assistant:noted user:second assistant:noted" {
		t.Errorf("conversation = %s", got)
	}
	for _, id := range []string{first.RunID, second.RunID} {
		if st := waitWorkflow(t, addr, "agentry-conv", id); st != enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
			t.Errorf("run %s: workflow %s, want completed on Temporal", id, st)
		}
	}

	t.Run("chat", func(t *testing.T) {
		s, out, errOut := testSession(site.env...)
		s.stdin = strings.NewReader("hello\nagain\n/exit\n")
		if code := s.main(context.Background(), append([]string{"chat", "leaf"}, args...)); code != 0 {
			t.Fatalf("chat: exit %d\n%s\n%s", code, out, errOut)
		}
		ids := regexp.MustCompile(`run ([0-9a-f]{32})`).FindAllStringSubmatch(out.String(), -1)
		if len(ids) != 2 {
			t.Fatalf("chat printed %d runs:\n%s", len(ids), out)
		}
		conv, err := store.ConversationOf(t.Context(), ids[1][1])
		if err != nil || conv != ids[0][1] {
			t.Fatalf("the second message's run is in conversation %q (%v), want %s", conv, err, ids[0][1])
		}
		if msgs, _ := store.ConversationMessages(t.Context(), conv); len(msgs) != 4 {
			t.Errorf("chat's conversation has %d messages, want 4", len(msgs))
		}
		if st := waitWorkflow(t, addr, "agentry-conv", ids[1][1]); st != enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
			t.Errorf("chat's second run: workflow %s, want completed on Temporal", st)
		}
	})

	t.Run("the run page's reply box", func(t *testing.T) {
		base, _ := site.startServe(t)
		c := browser(t)
		code, loc, body := postForm(t, c, base, "/runs/"+second.RunID, "/runs/"+second.RunID+"/reply", url.Values{"message": {"third"}})
		if code != http.StatusSeeOther {
			t.Fatalf("reply: %d\n%s", code, body)
		}
		id := strings.TrimPrefix(loc, "/runs/")
		waitRun(t, site.db, id, time.Minute)
		deadline := time.Now().Add(10 * time.Second)
		for {
			msgs, _ := store.ConversationMessages(t.Context(), first.RunID)
			if len(msgs) == 6 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the reply's conversation has %d messages, want 6", len(msgs))
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// Ctrl-C during a follow-up on Temporal cancels its run's workflow and
// waits for it to end, as for `agentry run` on Temporal: the
// conversation's own Ctrl-C watch must not end the wait first and leave
// the workflow running on the workers.
func TestCtrlCDuringAFollowUpOnTemporalCancelsItsWorkflow(t *testing.T) {
	addr := temporaltest.Start(t, "agentry-conv-int")
	site := newTemporalSite(t, addr, "agentry-conv-int", "leaf: [{say: noted}]\n")
	slow := writeFile(t, site.dir, "slow.yaml", "leaf:\n  - {latency: 1h, say: never}\n")
	site.startWorker(t)
	bin := buildTraceTestBinary(t)
	args := []string{"--agents", site.agents, "--db", site.db}
	code, out, errOut := cli(t, site.env, append([]string{"run", "leaf", "first", "--json"}, args...)...)
	var first struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(out), &first); code != 0 || err != nil {
		t.Fatalf("run: exit %d, %q %s", code, out, errOut)
	}
	cmd := exec.Command(bin, append([]string{"run", "--continue", first.RunID, "second", "--model", "script:" + slow}, args...)...)
	cmd.Env = append(os.Environ(), site.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	id := waitForRunningRunID(t, site.db)
	waitSpan(t, site.db, id, "leaf")
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	if st := workflowStatus(t, addr, "agentry-conv-int", id); st == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		t.Errorf("the follow-up's workflow is still running once run --continue ended on Ctrl-C\nstdout: %s\nstderr: %s", stdout.String(), stderr.String())
	}
	if run, _ := waitRun(t, site.db, id, 0); run.Status != trace.StatusCancelled {
		t.Errorf("the follow-up's run is %s once run --continue ended on Ctrl-C, want cancelled", run.Status)
	}
}
