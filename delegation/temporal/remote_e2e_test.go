package temporal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/a2a/a2atest"
	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
	"github.com/agentry/agentry/trace/sqlite"
)

// TestARemoteDelegationOnTemporalSurvivesAKilledWorker: a real `agentry
// run` on a real Temporal server delegates to a real A2A agent, whose task
// holds; the worker is SIGKILLed while it holds, and another worker's
// retry of the Remote activity follows the task the lost attempt started
// (its id in the attempt's heartbeat details) with tasks/resubscribe, or
// tasks/get for an agent without streaming. The remote gets the task once,
// and the delegation ends with its answer.
func TestARemoteDelegationOnTemporalSurvivesAKilledWorker(t *testing.T) {
	addr := temporaltest.Start(t, "agentry-remote")
	bin := buildAgentry(t)
	for _, streaming := range []bool{true, false} {
		follows := map[bool]string{true: "tasks/resubscribe", false: "tasks/get"}[streaming]
		t.Run(follows, func(t *testing.T) { remoteSurvivesAKilledWorker(t, addr, bin, streaming, follows) })
	}
}

func remoteSurvivesAKilledWorker(t *testing.T, addr, bin string, streaming bool, follows string) {
	agent := a2atest.Start(t, streaming)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agents/lead.md": "---\nname: lead\ndescription: Leads.\nsubagents: {allow: [echo]}\n---\nLead.\n",
		"script.yaml":    "lead:\n  - calls: [{tool: delegate, args: {agent: echo, task: hold}}]\n  - say: lead is done\n",
		"agentry.yaml": fmt.Sprintf("agents: agents\ndb: traces.db\nengine: temporal\na2a: [{card: %q, id: echo}]\n"+
			"temporal: {address: %q, namespace: agentry-remote, task_queue: %q}\n", agent.URL, addr, "remote-"+follows),
	})
	db := filepath.Join(dir, "traces.db")
	w1 := startWorker(t, bin, dir)
	run := exec.Command(bin, "run", "--json", "--model", "script:script.yaml", "lead", "go")
	run.Dir = dir
	var out, errb strings.Builder
	run.Stdout, run.Stderr = &out, &errb
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	c, err := client.Dial(client.Options{HostPort: addr, Namespace: "agentry-remote"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sends := func() int { return agent.Calls("message/send", "message/stream") }
	until(t, "the remote got the task", func() bool { return sends() == 1 })
	runID := latestRun(t, db)
	// The attempt records the task as soon as the remote names it; a
	// worker lost before that is the case this cannot help (docs/a2a.md).
	var recorded delegation.RemoteRef
	for deadline := time.Now().Add(15 * time.Second); recorded.TaskID == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		recorded, _ = remoteAttempt(c, runID)
	}
	t.Logf("heartbeat details of the attempt before the kill: %+v", recorded)
	if err := w1.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = w1.Wait()
	before := agent.Calls(follows, "message/send", "message/stream")
	startWorker(t, bin, dir)
	until(t, "the retry reached the remote", func() bool { return agent.Calls(follows, "message/send", "message/stream") > before })
	agent.Release()
	if err := waitFor(run, 2*time.Minute); err != nil {
		t.Fatalf("agentry run: %v\nstdout: %s\nstderr: %s", err, out.String(), errb.String())
	}
	var res delegation.Result
	if err := json.Unmarshal([]byte(out.String()), &res); err != nil || res.Status != trace.StatusOK || res.Result != "lead is done" || res.RunID != runID {
		t.Fatalf("result = %+v (%v); stderr: %s", res, err, errb.String())
	}
	if n := sends(); n != 1 {
		t.Errorf("the remote got %d tasks (message/send or message/stream), want 1", n)
	}
	var remote []trace.Span
	for _, sp := range readSpans(t, db, runID) {
		if sp.Name == "invoke_agent echo" {
			remote = append(remote, sp)
		}
	}
	if len(remote) != 1 || remote[0].Status != trace.StatusOK || remote[0].Attributes[semconv.AttrResult] != "echo: hold" ||
		remote[0].Attributes[semconv.AttrA2ATaskID] != recorded.TaskID || !slices.Equal(remoteStates(remote[0]), []string{"working", "completed"}) {
		t.Fatalf("remote spans = %+v, want one ended ok with the answer of task %s and its states as a first attempt reports them", remote, recorded.TaskID)
	}
	checkHistoriesN(t, addr, "agentry-remote", runID, 1)
}

// remoteStates are the states the remote task reported on sp.
func remoteStates(sp trace.Span) []string {
	var out []string
	for _, e := range sp.Events {
		if e.Name == semconv.EventRemoteStatus {
			out = append(out, asString(e.Attributes[semconv.EventAttrState]))
		}
	}
	return out
}

// remoteAttempt is the heartbeat details the run's pending Remote activity
// last recorded.
func remoteAttempt(c client.Client, runID string) (delegation.RemoteRef, error) {
	var ref delegation.RemoteRef
	d, err := c.DescribeWorkflowExecution(context.Background(), runID, "")
	if err != nil {
		return ref, err
	}
	for _, a := range d.GetPendingActivities() {
		if a.GetActivityType().GetName() == "Remote" && a.GetHeartbeatDetails() != nil {
			err = converter.GetDefaultDataConverter().FromPayloads(a.GetHeartbeatDetails(), &ref)
		}
	}
	return ref, err
}

// latestRun is the ID of the run the store at db recorded last.
func latestRun(t *testing.T, db string) string {
	t.Helper()
	var id string
	until(t, "the run is recorded", func() bool {
		store, err := sqlite.Open(db)
		if err != nil {
			return false
		}
		defer store.Close()
		page, err := store.Runs(context.Background(), trace.RunFilter{Limit: 1})
		if err != nil || len(page.Runs) == 0 {
			return false
		}
		id = page.Runs[0].ID
		return true
	})
	return id
}

// until waits for ok, failing the test naming what after a minute.
func until(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("%s: not within a minute", what)
}
