package a2a_test

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/semconv"
	"github.com/agentry/agentry/web"
	"github.com/agentry/agentry/web/a2a"
	"github.com/agentry/agentry/web/clienttest"
	"github.com/agentry/agentry/web/core"
	"github.com/agentry/agentry/web/internal/webtest"
)

//go:embed testdata/client.mjs
var clientSource string

const token = "a2a-t0ken-a2a-t0ken"

// agents: fast answers, slow takes a minute, lead asks before it
// delegates to writer; hidden is not exposed.
var agents = map[string]string{
	"fast.md":   "---\nname: fast\ndescription: Answers at once\nmodel: script:a2a.yaml\n---\nYou answer.\n",
	"slow.md":   "---\nname: slow\ndescription: Takes its time\nmodel: script:a2a.yaml\n---\nYou think.\n",
	"writer.md": "---\nname: writer\ndescription: Writes\nmodel: script:a2a.yaml\n---\nYou write.\n",
	"lead.md":   "---\nname: lead\ndescription: Leads\nmodel: script:a2a.yaml\nsubagents:\n  allow: [writer]\n  ask: [writer]\n---\nYou lead.\n",
	"hidden.md": "---\nname: hidden\ndescription: Not for outsiders\nmodel: script:a2a.yaml\n---\nYou hide.\n",
}

const script = `fast:
  - {latency: 100ms, say: "the answer is 42"}
slow:
  - {latency: 60s, say: "too late"}
writer:
  - {latency: 10ms, say: "written"}
lead:
  - calls: [{tool: delegate, args: {agent: writer, task: draft}}]
  - say: "led"
`

type site struct {
	*webtest.Site
	client clienttest.Script
}

// flows: brief is exposed (one input, so a text message gives it), the
// shipped content-pipeline is not.
var flows = map[string]string{
	"brief.yaml": "workflow: {name: brief, description: Briefs a topic}\ninputs:\n  - {name: topic, type: string, required: true}\n" +
		"steps:\n  - {id: answer, agent: fast, input: \"{{inputs.topic}}\", output: {store_as: answer}}\n",
}

func start(t *testing.T) site {
	t.Helper()
	s := webtest.StartSite(t, agents, flows, func(c *web.Config) {
		c.Token = token
		c.Expose = core.Exposure{Agents: []string{"fast", "slow", "lead"}, Workflows: []string{"brief"}}
	})
	if err := os.WriteFile(filepath.Join(s.Scripts, "a2a.yaml"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return site{Site: s, client: clienttest.Write(t, "client.mjs", clientSource, "@a2a-js/sdk")}
}

// run runs one step of the JS client and returns the lines it printed;
// each, when given, gets each line as the client prints it.
func (s site) run(t *testing.T, step map[string]any, each ...func(map[string]any)) []map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	b, _ := json.Marshal(step)
	cmd := s.client.Command(ctx, string(b))
	cmd.Env = append(os.Environ(), "A2A_BASE="+s.URL, "A2A_TOKEN="+token)
	var errOut strings.Builder
	cmd.Stderr = &errOut
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []map[string]any
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("client printed %q: %v", sc.Text(), err)
		}
		lines = append(lines, m)
		for _, f := range each {
			f(m)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("client: %v\nstderr:\n%s\nprinted: %v", err, errOut.String(), lines)
	}
	return lines
}

// lines of one kind the client printed.
func saw(lines []map[string]any, kind string) []map[string]any {
	var out []map[string]any
	for _, l := range lines {
		if l["saw"] == kind {
			out = append(out, l)
		}
	}
	return out
}

func states(lines []map[string]any) []string {
	var out []string
	for _, l := range saw(lines, "state") {
		out = append(out, fmt.Sprint(l["state"]))
	}
	return out
}

// completed checks what a send step saw: name's card, with the one skill
// name, and the task completed with result; it returns the task, its
// outcome (the artifact's data part) and the run's ID.
func completed(t *testing.T, lines []map[string]any, name, description, result string) (task, outcome map[string]any, runID string) {
	t.Helper()
	if c := saw(lines, "card"); len(c) != 1 || c[0]["name"] != name || c[0]["description"] != description || fmt.Sprint(c[0]["skills"]) != "["+name+"]" {
		t.Errorf("card = %v", c)
	}
	tasks := saw(lines, "task")
	if len(tasks) != 1 || tasks[0]["state"] != "completed" || tasks[0]["result"] != result {
		t.Fatalf("task = %v", tasks)
	}
	outcome, _ = tasks[0]["outcome"].(map[string]any)
	runID, _ = outcome["run_id"].(string)
	return tasks[0], outcome, runID
}

func TestTheA2AJSClientSendsAMessageAndGetsItsTask(t *testing.T) {
	s := start(t)
	lines := s.run(t, map[string]any{"do": "send", "card": "/a2a/fast" + a2a.CardPath, "task": "what is it?",
		"metadata": map[string]any{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}})
	task, outcome, runID := completed(t, lines, "fast", "Answers at once", "the answer is 42")
	if outcome["status"] != "ok" || outcome["agent"] != "fast" || runID == "" {
		t.Errorf("outcome = %v", outcome)
	}
	if meta, _ := task["metadata"].(map[string]any); meta["run_id"] != runID {
		t.Errorf("task metadata = %v, want run_id %s", meta, runID)
	}
	if got := saw(lines, "got"); len(got) != 1 || got[0]["id"] != task["id"] || got[0]["state"] != "completed" {
		t.Errorf("tasks/get = %v", got)
	}
	if got := saw(lines, "got-by-run"); len(got) != 1 || got[0]["id"] != task["id"] || got[0]["state"] != "completed" {
		t.Errorf("tasks/get by the run's ID %s = %v, want task %v", runID, got, task["id"])
	}
	spans, err := s.Store.Spans(context.Background(), runID)
	if err != nil || len(spans) == 0 {
		t.Fatalf("run %s: %v", runID, err)
	}
	for k, want := range map[string]any{"caller.protocol": "a2a", semconv.AttrTask: "what is it?"} {
		if spans[0].Attributes[k] != want {
			t.Errorf("root span %s = %v, want %v", k, spans[0].Attributes[k], want)
		}
	}
}

// A call that waits for approval makes the task input-required; once a
// person answers (here, the approvals store, as the web does), it works
// again and completes.
func TestTheA2AJSClientStreamsATaskThroughInputRequiredToCompleted(t *testing.T) {
	s := start(t)
	approved := ""
	lines := s.run(t, map[string]any{"do": "stream", "card": "/a2a/lead" + a2a.CardPath, "task": "Lead the draft"},
		func(l map[string]any) {
			if l["state"] != "input-required" || approved != "" { // a person answers what the client was told waits
				return
			}
			pending, err := s.Store.Approvals(context.Background(), approval.Filter{Status: approval.Pending})
			if err != nil || len(pending) != 1 {
				t.Errorf("pending approvals while input-required: %v %v", pending, err)
				return
			}
			approved = pending[0].ID
			if _, err := s.Store.DecideApproval(context.Background(), approved, approval.Answer{Approve: true, By: "test", At: time.Now()}); err != nil {
				t.Error(err)
			}
		})
	got := states(lines)
	want := []string{"submitted", "working", "input-required", "working", "completed"}
	if !slices.Equal(got, want) {
		t.Errorf("states = %v, want %v", got, want)
	}
	var asked string
	for _, l := range saw(lines, "state") {
		if l["state"] == "input-required" {
			asked, _ = l["message"].(string)
		}
	}
	if !strings.Contains(asked, "lead wants to call delegate") || approved == "" || !strings.Contains(asked, approved) {
		t.Errorf("input-required message = %q, want the call and approval %q", asked, approved)
	}
	if a := saw(lines, "artifact"); len(a) != 1 || a[0]["result"] != "led" {
		t.Errorf("artifacts = %v", a)
	}
}

// The client cancels by the run's ID, which the working state names (a
// task's ID is the SDK's, not the run's: tasks/cancel takes either).
func TestTheA2AJSClientCancelsALongTaskByItsRunID(t *testing.T) {
	s := start(t)
	lines := s.run(t, map[string]any{"do": "cancel", "card": "/a2a/slow" + a2a.CardPath, "task": "think", "byRun": true})
	if c := saw(lines, "cancel"); len(c) != 1 || c[0]["state"] != "canceled" {
		t.Errorf("tasks/cancel = %v", c)
	}
	var runID string
	for _, l := range saw(lines, "state") {
		if meta, ok := l["metadata"].(map[string]any); ok && meta["run_id"] != nil {
			runID = fmt.Sprint(meta["run_id"])
		}
	}
	if runID == "" {
		t.Fatalf("no state named the run: %v", lines)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		run, err := s.Store.Run(context.Background(), runID)
		if err == nil && run.Status.IsFinal() {
			if run.Status != trace.StatusCancelled {
				t.Errorf("the run ended %s, want cancelled", run.Status)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s never ended after tasks/cancel", runID)
		}
	}
}

// Cards are behind the token, and only exposed agents have one.
func TestCardsFollowTheExposure(t *testing.T) {
	s := start(t)
	get := func(method, path, tok string) (int, map[string]any) {
		req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}`))
		req.Header.Set("Content-Type", "application/json")
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	if code, card := get(http.MethodGet, a2a.CardPath, token); code != http.StatusOK || card["name"] != "fast" ||
		card["url"] != s.URL+"/a2a/fast" || card["protocolVersion"] != a2a.ProtocolVersion {
		t.Errorf("the well-known card = %d %v, want fast's", code, card)
	}
	if code, _ := get(http.MethodGet, a2a.CardPath, ""); code != http.StatusUnauthorized {
		t.Errorf("the card without the token = %d, want 401", code)
	}
	if code, _ := get(http.MethodGet, "/a2a/hidden"+a2a.CardPath, token); code != http.StatusNotFound {
		t.Errorf("an unexposed agent's card = %d, want 404", code)
	}
	if code, _ := get(http.MethodPost, "/a2a/hidden", token); code != http.StatusNotFound {
		t.Errorf("an unexposed agent's endpoint = %d, want 404", code)
	}
}

// An exposed workflow has a card and an endpoint, /a2a/workflow-NAME; a
// message runs it (its text is the one input) and the task completes with
// the workflow's result and outcome.
func TestTheA2AJSClientRunsAnExposedWorkflow(t *testing.T) {
	s := start(t)
	lines := s.run(t, map[string]any{"do": "send", "card": "/a2a/workflow-brief" + a2a.CardPath, "task": "what is it?"})
	_, outcome, runID := completed(t, lines, "brief", "Briefs a topic", "the answer is 42")
	outputs, _ := outcome["outputs"].(map[string]any)
	if outcome["status"] != "ok" || outcome["workflow"] != "brief" || runID == "" || outputs["answer"] != "the answer is 42" ||
		!strings.Contains(fmt.Sprint(outcome["report"]), "Workflow Execution Report: brief") {
		t.Errorf("outcome = %v", outcome)
	}
	spans, err := s.Store.Spans(context.Background(), runID)
	if err != nil || len(spans) == 0 {
		t.Fatalf("run %s: %v", runID, err)
	}
	if root := spans[0]; root.Kind != trace.KindInvokeWorkflow || root.Attributes["caller.protocol"] != "a2a" {
		t.Errorf("root span = %s %v, want the workflow's, asked by a2a", root.Kind, root.Attributes)
	}
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/a2a/workflow-content-pipeline"+a2a.CardPath, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unexposed workflow's card: %v %v, want 404", resp, err)
	} else {
		resp.Body.Close()
	}
}
