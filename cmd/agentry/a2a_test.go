package main

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/otlp"
	"github.com/agentry/agentry/trace/semconv"
	"github.com/agentry/agentry/trace/sqlite"
)

const remoteToken = "remote-t0ken-remote-t0ken"

// remoteAgentry is a second agentry: `agentry serve` exposing helper
// (answers at once) and slow (takes a minute) over A2A, behind a token.
// It returns serve's base URL and its trace database.
func remoteAgentry(t *testing.T) (base, db string) {
	t.Helper()
	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "helper.md", "---\nname: helper\ndescription: Answers riddles at once\n---\nYou answer.\n")
	writeFile(t, agents, "slow.md", "---\nname: slow\ndescription: Takes its time\n---\nYou think.\n")
	writeFile(t, dir, "scripts/s.yaml", "helper:\n  - {latency: 50ms, say: \"the remote answer is 42\"}\nslow:\n  - {latency: 60s, say: \"too late\"}\n")
	db = filepath.Join(dir, "remote.db")
	writeFile(t, dir, "agentry.yaml", "agents: "+agents+"\ndb: "+db+"\nworkspace: "+dir+
		"\nmodels:\n  default: script:s.yaml\nserve:\n  script_dir: "+filepath.Join(dir, "scripts")+"\nexpose:\n  agents: [helper, slow]\n")
	return startServe(t, dir, remoteToken), db
}

// closedURL is an http URL on a port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// parentProject is the agentry that delegates: lead may call helper-remote,
// strict denies it, waiter calls slow-remote, lost calls an agent whose
// card is nowhere. Its a2a: section names the remote agents.
func parentProject(t *testing.T, base, nowhere string) (dir, db string) {
	t.Helper()
	dir = t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "lead.md", "---\nname: lead\ndescription: Leads\nsubagents:\n  allow: [helper-remote]\n---\nYou lead.\n")
	writeFile(t, agents, "strict.md", "---\nname: strict\ndescription: Trusts no one outside\nsubagents:\n  allow: [\"*\"]\n  deny: [helper-remote]\n---\nYou lead.\n")
	writeFile(t, agents, "waiter.md", "---\nname: waiter\ndescription: Waits\nsubagents:\n  allow: [slow-remote]\n---\nYou wait.\n")
	writeFile(t, agents, "lost.md", "---\nname: lost\ndescription: Calls the void\nsubagents:\n  allow: [gone]\n---\nYou call.\n")
	sc := writeFile(t, dir, "p.yaml", `lead:
  - calls: [{tool: delegate, args: {agent: helper-remote, task: "what is it?", context: "a riddle"}}]
  - say: "lead is done"
strict:
  - calls: [{tool: delegate, args: {agent: helper-remote, task: "what is it?"}}]
  - say: "strict is done"
waiter:
  - calls: [{tool: delegate, args: {agent: slow-remote, task: "think"}}]
  - say: "never"
lost:
  - calls: [{tool: delegate, args: {agent: gone, task: "hello?"}}]
  - say: "lost is done"
`)
	db = filepath.Join(dir, "parent.db")
	writeFile(t, dir, "agentry.yaml", "agents: "+agents+"\ndb: "+db+"\nworkspace: "+dir+"\nmodels:\n  default: script:"+sc+`
a2a:
  - card: `+base+`a2a/helper/.well-known/agent-card.json
    id: helper-remote
    token_env: REMOTE_TOKEN
  - card: `+base+`a2a/slow
    id: slow-remote
    token_env: REMOTE_TOKEN
    description: Thinks for a long time
  - card: `+nowhere+`/a2a/gone/.well-known/agent-card.json
    id: gone
  - card: `+nowhere+`/a2a/anonymous/.well-known/agent-card.json
`)
	return dir, db
}

// spansOf reads run id's spans from db.
func spansOf(t *testing.T, db, id string) []trace.Span {
	t.Helper()
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	spans, err := store.Spans(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return spans
}

func spanNamed(t *testing.T, spans []trace.Span, name string) trace.Span {
	t.Helper()
	for _, sp := range spans {
		if sp.Name == name {
			return sp
		}
	}
	t.Fatalf("no span %q in %d spans", name, len(spans))
	return trace.Span{}
}

// runParent runs agent in the parent project and returns its --json result.
func runParent(t *testing.T, dir, agent string) (res struct{ RunID, Status, Result, Error string }, stderr string) {
	t.Helper()
	s, out, errOut := testSession("REMOTE_TOKEN=" + remoteToken)
	code := s.main(context.Background(), []string{"run", agent, "go", "--config", filepath.Join(dir, "agentry.yaml"), "--json"})
	if err := json.Unmarshal(out.Bytes(), &struct {
		RunID  *string `json:"run_id"`
		Status *string `json:"status"`
		Result *string `json:"result"`
		Error  *string `json:"error"`
	}{&res.RunID, &res.Status, &res.Result, &res.Error}); err != nil || code != 0 {
		t.Fatalf("run %s: exit %d, stdout %q, stderr %s", agent, code, out, errOut)
	}
	return res, errOut.String()
}

func TestARemoteA2AAgentIsASubAgentUnderTheParentsRules(t *testing.T) {
	base, remoteDB := remoteAgentry(t)
	nowhere := closedURL(t)
	dir, db := parentProject(t, base, nowhere)

	t.Run("allowed: the task goes there and the answer comes back, traced with the remote task", func(t *testing.T) {
		res, stderr := runParent(t, dir, "lead")
		if res.Status != "ok" || res.Result != "lead is done" {
			t.Fatalf("result = %+v", res)
		}
		for _, warn := range []string{nowhere + "/a2a/gone/.well-known/agent-card.json could not be fetched", "gone is offered",
			nowhere + "/a2a/anonymous/.well-known/agent-card.json could not be fetched", "left out"} {
			if !strings.Contains(stderr, warn) {
				t.Errorf("stderr does not warn %q:\n%s", warn, stderr)
			}
		}
		spans := spansOf(t, db, res.RunID)
		call := spanNamed(t, spans, "execute_tool delegate")
		remote := spanNamed(t, spans, "invoke_agent helper-remote")
		taskID, _ := remote.Attributes[semconv.AttrA2ATaskID].(string)
		if remote.Status != trace.StatusOK || remote.ParentID != call.ID || remote.Depth != 1 || taskID == "" ||
			remote.Attributes[semconv.AttrResult] != "the remote answer is 42" ||
			remote.Attributes[semconv.AttrA2ACardURL] != base+"a2a/helper/.well-known/agent-card.json" ||
			remote.Attributes[semconv.AttrA2ATaskState] != "completed" || remote.EndedAt.Before(remote.StartedAt) {
			t.Fatalf("remote span = %+v", remote)
		}
		var result struct {
			Status, Agent, Result string
			DurationMS            *int64 `json:"duration_ms"`
		}
		_ = json.Unmarshal([]byte(fmt.Sprint(call.Attributes[semconv.AttrToolResult])), &result)
		if call.Status != trace.StatusOK || call.Attributes[semconv.AttrTargetAgent] != "helper-remote" || call.Attributes[semconv.AttrA2ATaskID] != taskID ||
			result.Status != "ok" || result.Agent != "helper-remote" || result.Result != "the remote answer is 42" || result.DurationMS == nil {
			t.Fatalf("delegate span = %+v", call)
		}
		if !strings.Contains(fmt.Sprint(spanNamed(t, spans, "invoke_agent lead").Attributes[semconv.AttrPermissions]), "helper-remote") {
			t.Errorf("lead's permission decisions do not name helper-remote: %v", spanNamed(t, spans, "invoke_agent lead").Attributes[semconv.AttrPermissions])
		}
		// The remote side ran it as a run of its own, with the task and
		// the context as separate parts.
		remoteRun, _ := remote.Attributes[semconv.AttrRemoteRunID].(string)
		rs := spanNamed(t, spansOf(t, remoteDB, remoteRun), "invoke_agent helper")
		if rs.Status != trace.StatusOK || !strings.HasPrefix(fmt.Sprint(rs.Attributes[semconv.AttrTask]), "what is it?") ||
			!strings.Contains(fmt.Sprint(rs.Attributes[semconv.AttrTask]), "a riddle") {
			t.Errorf("remote run %q: span = %+v", remoteRun, rs)
		}
		// It joined this trace, under the span that stands for it here.
		if tp, want := rs.Attributes[otlp.AttrTraceParent], "00-"+res.RunID+"-"+remote.ID+"-01"; tp != want {
			t.Errorf("remote root span's traceparent = %v, want %s", tp, want)
		}
	})

	t.Run("validate knows the remote ids", func(t *testing.T) {
		s, out, errOut := testSession()
		if code := s.main(context.Background(), []string{"validate", "--config", filepath.Join(dir, "agentry.yaml"), "--json"}); code != 0 || strings.Contains(out.String(), "remote") || strings.Contains(out.String(), "gone") {
			t.Fatalf("validate: exit %d, %s %s", code, out, errOut)
		}
	})

	t.Run("serve's graph and permissions explorer show the remote agents it resolved", func(t *testing.T) {
		const token = "parent-t0ken-parent-t0ken"
		ui := strings.TrimSuffix(startServe(t, dir, token), "/")
		page := func(path string) string {
			t.Helper()
			req, _ := http.NewRequest(http.MethodGet, ui+path, nil)
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s = %d: %s", path, resp.StatusCode, body)
			}
			return html.UnescapeString(string(body))
		}
		graph := page("/graph")
		for _, want := range []string{`data-testid="node-helper-remote"`, `data-testid="edge-lead-helper-remote" data-from="lead" data-to="helper-remote" data-kind="allowed"`,
			`data-kind="denied"`, base + "a2a/helper/.well-known/agent-card.json"} {
			if !strings.Contains(graph, want) {
				t.Errorf("the graph lacks %s", want)
			}
		}
		explorer := page("/permissions?chain=strict")
		if !strings.Contains(explorer, `data-testid="remote-helper-remote"`) || !strings.Contains(explorer, `denied by agent "strict": subagents deny pattern "helper-remote"`) {
			t.Errorf("the explorer for strict does not show helper-remote, remote and denied:\n%s", explorer)
		}
	})

	t.Run("denied: the parent's deny rule refuses it with the reason, and nothing goes out", func(t *testing.T) {
		res, _ := runParent(t, dir, "strict")
		if res.Status != "ok" || res.Result != "strict is done" {
			t.Fatalf("result = %+v", res)
		}
		spans := spansOf(t, db, res.RunID)
		call := spanNamed(t, spans, "execute_tool delegate")
		if call.Status != trace.StatusDenied || !strings.Contains(call.Error, `denied by agent "strict": subagents deny pattern "helper-remote"`) {
			t.Fatalf("delegate span = %s %q", call.Status, call.Error)
		}
		for _, sp := range spans {
			if sp.Name == "invoke_agent helper-remote" {
				t.Fatalf("a denied remote agent ran: %+v", sp)
			}
		}
	})

	t.Run("unreachable: the delegation fails naming the card's URL, the run goes on", func(t *testing.T) {
		res, _ := runParent(t, dir, "lost")
		if res.Status != "ok" || res.Result != "lost is done" {
			t.Fatalf("result = %+v", res)
		}
		remote := spanNamed(t, spansOf(t, db, res.RunID), "invoke_agent gone")
		if remote.Status != trace.StatusError || !strings.Contains(remote.Error, nowhere+"/a2a/gone/.well-known/agent-card.json could not be fetched") {
			t.Fatalf("gone's span = %s %q", remote.Status, remote.Error)
		}
	})

	t.Run("cancelled: cancelling the parent run cancels the remote task", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		out := &cancelOnLine{trigger: " working", cancel: cancel}
		s, _, errOut := testSession("REMOTE_TOKEN="+remoteToken, "AGENTRY_DELEGATION__TIMEOUT=1m") // the guard if cancelling failed
		s.stdout = out
		if code := s.main(ctx, []string{"run", "waiter", "go", "--config", filepath.Join(dir, "agentry.yaml")}); code != 1 {
			t.Fatalf("exit %d, want 1; stdout %q, stderr %q", code, out, errOut)
		}
		m := regexp.MustCompile(`\nrun (\S+): cancelled\n`).FindStringSubmatch(out.String())
		if m == nil {
			t.Fatalf("output does not say the run was cancelled:\n%s", out)
		}
		remote := spanNamed(t, spansOf(t, db, m[1]), "invoke_agent slow-remote")
		taskID, _ := remote.Attributes[semconv.AttrA2ATaskID].(string)
		remoteRun, _ := remote.Attributes[semconv.AttrRemoteRunID].(string)
		if remote.Status != trace.StatusCancelled || taskID == "" || remoteRun == "" {
			t.Fatalf("remote span = %+v", remote)
		}
		if st := remoteTaskState(t, base, taskID); st != sdk.TaskStateCanceled {
			t.Errorf("remote task %s is %s, want canceled", taskID, st)
		}
		waitRemoteRun(t, remoteDB, remoteRun, trace.StatusCancelled)
	})
}

// remoteTaskState asks the remote agentry for a task's state with the
// SDK's client (tasks/get).
func remoteTaskState(t *testing.T, base string, id string) sdk.TaskState {
	t.Helper()
	ctx := context.Background()
	card, err := agentcard.DefaultResolver.Resolve(ctx, strings.TrimSuffix(base, "/"), agentcard.WithPath("/a2a/slow/.well-known/agent-card.json"),
		agentcard.WithRequestHeader("Authorization", "Bearer "+remoteToken))
	if err != nil {
		t.Fatal(err)
	}
	c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithInterceptors(bearerForTest{}))
	if err != nil {
		t.Fatal(err)
	}
	task, err := c.GetTask(ctx, &sdk.TaskQueryParams{ID: sdk.TaskID(id)})
	if err != nil {
		t.Fatalf("tasks/get %s: %v", id, err)
	}
	return task.Status.State
}

type bearerForTest struct {
	a2aclient.PassthroughInterceptor
}

func (bearerForTest) Before(ctx context.Context, req *a2aclient.Request) (context.Context, error) {
	req.Meta["Authorization"] = []string{"Bearer " + remoteToken}
	return ctx, nil
}

// waitRemoteRun waits for the remote run to end with want.
func waitRemoteRun(t *testing.T, db, id string, want trace.Status) {
	t.Helper()
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var got trace.Run
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got, err = store.Run(context.Background(), id); err == nil && !got.EndedAt.IsZero() {
			break
		}
	}
	if got.Status != want {
		t.Fatalf("remote run %s = %s (%v), want %s", id, got.Status, err, want)
	}
}
