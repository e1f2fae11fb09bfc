package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"

	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	"github.com/agentry/agentry/trace"
)

// A durable run is every serve's on Temporal: a second serve (not the one
// that started it) cancels it from its run page, ends the record of a run
// whose workflow was terminated in Temporal, and continues a run stopped
// by its budget with a larger one, on the workers.
func TestADurableRunIsEveryServesOnTemporal(t *testing.T) {
	const ns = "agentry-any"
	addr := temporaltest.Start(t, ns)
	site := newTemporalSite(t, addr, ns, `coord:
  - tokens: {input: 50, output: 10}
    calls: [{tool: delegate, args: {agent: leaf, task: one}}]
  - {say: all done}
leaf:
  - {say: leaf answer, latency: 4s, tokens: {input: 60, output: 20}}
`)
	site.startWorker(t)
	first, _ := site.startServe(t)
	second, _ := site.startServe(t)
	c := browser(t)
	start := func() string {
		t.Helper()
		code, loc, body := postForm(t, c, first, "/runs/new", "/runs/new", url.Values{"agent": {"coord"}, "task": {"go"}})
		if code != http.StatusSeeOther || !strings.HasPrefix(loc, "/runs/") {
			t.Fatalf("start form: %d, Location %q\n%s", code, loc, body)
		}
		id := strings.TrimPrefix(loc, "/runs/")
		waitSpan(t, site.db, id, "leaf")
		return id
	}

	t.Run("another serve cancels the run", func(t *testing.T) {
		id := start()
		if code, page := get(t, c, second+"/runs/"+id); code != http.StatusOK || !strings.Contains(page, `data-testid="cancel-run"`) {
			t.Fatalf("the second serve's page of the going run: %d, cancel button %v", code, strings.Contains(page, "cancel-run"))
		}
		if code, _, body := postForm(t, c, second, "/runs/"+id, "/runs/"+id+"/cancel", url.Values{}); code != http.StatusSeeOther {
			t.Fatalf("cancel from the second serve: %d\n%s", code, body)
		}
		run, spans := waitRun(t, site.db, id, time.Minute)
		if run.Status != trace.StatusCancelled || !run.Durable {
			t.Fatalf("run ended %s (%s), durable %v; want cancelled, durable", run.Status, run.Error, run.Durable)
		}
		if st := waitWorkflow(t, addr, ns, id); st == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			t.Errorf("workflow %s still running after Cancel", id)
		}
		if !cancelRequested(t, addr, ns, id) {
			t.Errorf("workflow %s's history has no cancel request", id)
		}
		for _, sp := range spans {
			if !sp.Status.IsFinal() {
				t.Errorf("span %s of %s left %s", sp.Name, sp.Agent, sp.Status)
			}
		}
		// The page's layout looks at the store at most every 250 ms
		// (web/runs/layout.go), and the page was read just before Cancel.
		offers := true
		for deadline := time.Now().Add(5 * time.Second); offers && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			_, page := get(t, c, second+"/runs/"+id)
			offers = strings.Contains(page, `data-testid="cancel-run"`)
		}
		if offers {
			t.Errorf("the page of the cancelled run still offers Cancel")
		}
	})

	t.Run("a terminated workflow's run is ended by the reaper", func(t *testing.T) {
		id := start()
		tc, err := client.Dial(client.Options{HostPort: addr, Namespace: ns, Logger: log.NewStructuredLogger(slog.New(slog.DiscardHandler))})
		if err != nil {
			t.Fatal(err)
		}
		defer tc.Close()
		if err := tc.TerminateWorkflow(context.Background(), id, "", "stuck, says ops"); err != nil {
			t.Fatal(err)
		}
		run, spans := waitRun(t, site.db, id, 30*time.Second)
		if run.Status != trace.StatusInterrupted || !strings.Contains(run.Error, "terminated") || !strings.Contains(run.Error, "stuck, says ops") {
			t.Fatalf("run = %s %q; want interrupted, saying Temporal terminated it and why", run.Status, run.Error)
		}
		open := 0
		for _, sp := range spans {
			if !sp.Status.IsFinal() || sp.EndedAt.IsZero() {
				t.Errorf("span %s of %s left %s", sp.Name, sp.Agent, sp.Status)
			}
			if sp.Status == trace.StatusInterrupted {
				open++
			}
		}
		if open == 0 {
			t.Errorf("no span was ended by the reaper: %d spans", len(spans))
		}
	})

	t.Run("the continue form runs with a larger budget on Temporal", func(t *testing.T) {
		code, out, errOut := cli(t, site.env, "run", "coord", "go", "--budget-tokens", "100", "--json", "--agents", site.agents, "--db", site.db)
		var stopped struct {
			RunID  string `json:"run_id"`
			Status string `json:"status"`
		}
		if err := json.Unmarshal([]byte(out), &stopped); err != nil || code != 1 || stopped.Status != "limit" {
			t.Fatalf("run --budget-tokens 100: exit %d, %q %s", code, out, errOut)
		}
		if _, page := get(t, c, second+"/runs/"+stopped.RunID); !strings.Contains(page, `name="budget_tokens"`) {
			t.Fatalf("the run page of a run stopped by its budget offers no continue form")
		}
		code, loc, body := postForm(t, c, second, "/runs/"+stopped.RunID, "/runs/"+stopped.RunID+"/continue", url.Values{"budget_tokens": {"1000"}})
		if code != http.StatusSeeOther || !strings.HasPrefix(loc, "/runs/") {
			t.Fatalf("continue form: %d, Location %q\n%s", code, loc, body)
		}
		id := strings.TrimPrefix(loc, "/runs/")
		run, _ := waitRun(t, site.db, id, time.Minute)
		if run.Status != trace.StatusOK || run.Result != "all done" || !run.Durable || !strings.Contains(run.Task, "stopped at its budget") {
			t.Fatalf("continuation = %s %q, durable %v, task %q; want ok, all done, on Temporal, with the report", run.Status, run.Result, run.Durable, run.Task)
		}
		if st := waitWorkflow(t, addr, ns, id); st != enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
			t.Errorf("workflow %s is %s, want completed", id, st)
		}
		// The budget travels: under one too small, the continuation stops too.
		code, loc, body = postForm(t, c, second, "/runs/"+stopped.RunID, "/runs/"+stopped.RunID+"/continue", url.Values{"budget_tokens": {"100"}})
		if code != http.StatusSeeOther {
			t.Fatalf("continue form: %d\n%s", code, body)
		}
		if run, _ := waitRun(t, site.db, strings.TrimPrefix(loc, "/runs/"), time.Minute); run.Status != trace.StatusLimit {
			t.Fatalf("continuation under 100 tokens ended %s (%q); want limit", run.Status, run.Result)
		}
	})
}

// cancelRequested reports whether workflow id's history holds a request to
// cancel it.
func cancelRequested(t *testing.T, addr, namespace, id string) bool {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: addr, Namespace: namespace, Logger: log.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	it := c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED {
			return true
		}
	}
	return false
}
