package temporal_test

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	"github.com/agentry/agentry/trace"
)

// TestABudgetTripOnTemporalReportsAndContinues: a real `agentry run
// --budget-tokens 150` on a real Temporal server trips in a child
// workflow, ends with status limit (exit 1) and the partial-progress
// report, and `agentry run --continue RUN_ID --budget-tokens 1000` on
// Temporal finishes the work.
func TestABudgetTripOnTemporalReportsAndContinues(t *testing.T) {
	addr := temporaltest.Start(t, "agentry-budget")
	bin := buildAgentry(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agents/fruit.md": "---\nname: fruit\ndescription: Counts.\nsubagents: {allow: [alpha, beta, gamma], execution: sequential}\n---\nCount.\n",
		"agents/alpha.md": "---\nname: alpha\ndescription: Apples.\n---\nCount.\n",
		"agents/beta.md":  "---\nname: beta\ndescription: Pears.\ntools: [filesystem.read_file]\n---\nCount.\n",
		"agents/gamma.md": "---\nname: gamma\ndescription: Plums.\n---\nCount.\n",
		"script.yaml":     fruitScript,
		"work/note.txt":   "the note",
		"agentry.yaml": fmt.Sprintf("agents: agents\ndb: traces.db\nworkspace: work\nengine: temporal\n"+
			"temporal: {address: %q, namespace: agentry-budget, task_queue: budget}\n", addr),
	})
	startWorker(t, bin, dir)
	run := func(args ...string) (delegation.Result, int) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"run", "--json", "--model", "script:script.yaml"}, args...)...)
		cmd.Dir = dir
		var errb strings.Builder
		cmd.Stderr = &errb
		start := time.Now()
		out, err := cmd.Output()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		var res delegation.Result
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("agentry run %v: %v\n%s\n%s", args, err, out, errb.String())
		}
		t.Logf("agentry run %s: %s in %v", strings.Join(args, " "), res.Status, time.Since(start).Round(time.Millisecond))
		return res, code
	}
	res, code := run("--budget-tokens", "150", "fruit", "count the fruit")
	if res.Status != trace.StatusLimit || code != 1 || res.Error != "budget spent: 180 tokens used of a budget of 150" {
		t.Fatalf("run = %+v (exit %d), want limit after 180 tokens", res, code)
	}
	for _, want := range []string{
		"Done:\n- alpha: \"count the apples\" → 7 apples\n",
		"- beta: \"count the pears\" (stopped by the budget)\n",
		"- gamma: \"count the plums\" (not started: the budget was spent)\n",
		"agentry run --continue " + res.RunID + " --budget-tokens 420\n",
	} {
		if !strings.Contains(res.Result, want) {
			t.Errorf("report lacks %q:\n%s", want, res.Result)
		}
	}
	t.Logf("the report of a budget trip on Temporal:\n%s", res.Result)
	spans := readSpans(t, dir+"/traces.db", res.RunID)
	chats := 0
	for _, sp := range spans {
		if sp.Kind == trace.KindChat {
			chats++
		}
	}
	if chats != 3 {
		t.Errorf("%d model calls, want 3: none after the budget was spent", chats)
	}
	checkHistoriesN(t, addr, "agentry-budget", res.RunID, 3) // the run, alpha and beta; gamma never started
	next, code := run("--continue", res.RunID, "--budget-tokens", "1000")
	if next.Status != trace.StatusOK || code != 0 || next.Result != "all counted" {
		t.Errorf("continued run = %+v (exit %d), want ok", next, code)
	}
}
