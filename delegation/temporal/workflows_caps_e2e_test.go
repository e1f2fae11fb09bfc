package temporal_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	"github.com/agentry/agentry/trace"
)

// capsYAML is a workflow whose one step runs four agents in parallel, each
// answering after a second, so overlapping invocations show in their spans.
const (
	capsYAML = `workflow: {name: four, description: Four agents at once}
agents:
  a1: {prompt: "One on {{inputs.topic}}"}
  a2: {prompt: "Two on {{inputs.topic}}"}
  a3: {prompt: "Three on {{inputs.topic}}"}
  a4: {prompt: "Four on {{inputs.topic}}"}
inputs:
  - {name: topic, type: string, required: true}
steps:
  - id: all
    type: parallel
    parallel:
      - {agent: a1, output_key: one}
      - {agent: a2, output_key: two}
      - {agent: a3, output_key: three}
      - {agent: a4, output_key: four}
`
	capsScript = `a1: [{say: one done, latency: 1s}]
a2: [{say: two done, latency: 1s}]
a3: [{say: three done, latency: 1s}]
a4: [{say: four done, latency: 1s}]
`
)

// A workflow run's agents count under delegation.max_concurrent and
// max_agents_per_run on Temporal as in-process: under max_concurrent 2 no
// more than two of the four agents work at once, and under
// max_agents_per_run 2 only two start and the run ends as it does in-process.
func TestWorkflowRunCapsCountItsAgentsOnTemporalAsInProcess(t *testing.T) {
	addr := temporaltest.Start(t, "agentry-flowcaps")
	bin := buildAgentry(t)
	for _, tc := range []struct {
		name, caps             string
		wantAgents, wantAtOnce int
	}{
		{"max_concurrent", "delegation: {max_concurrent: 2}\n", 4, 2},
		{"max_agents_per_run", "delegation: {max_agents_per_run: 2}\n", 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := flowSite(t, addr, "agentry-flowcaps", map[string]string{
				"workflows/four.yaml": capsYAML, "workflows/scripts/four.script.yaml": capsScript,
				"workflows/scripts/four.inputs.json": `{"topic": "caps"}`,
				"agentry.yaml": fmt.Sprintf("agents: agents\ndb: traces.db\nworkspace: work\nworkflows: workflows\nengine: temporal\n"+
					"temporal: {address: %q, namespace: agentry-flowcaps, task_queue: caps-%s}\n%s", addr, tc.name, tc.caps)})
			startWorker(t, bin, dir)
			db := filepath.Join(dir, "traces.db")
			type ran struct {
				status, report any
				agents, atOnce int
			}
			runs := map[string]ran{}
			for _, engine := range []string{"temporal", "inprocess"} {
				res, _, stderr := workflowRun(t, bin, dir, "four", "AGENTRY_ENGINE="+engine)
				id, _ := res["run_id"].(string)
				spans := readSpans(t, db, id)
				var inv []trace.Span
				for _, sp := range spans {
					if sp.Kind == trace.KindInvokeAgent {
						inv = append(inv, sp)
					}
				}
				runs[engine] = ran{res["status"], sizes.ReplaceAllString(masked.ReplaceAllString(fmt.Sprint(res["report"]), "…"), "…"), len(inv), overlap(inv)}
				t.Logf("%s: status %v, %d agents, %d at once; stderr %s", engine, res["status"], len(inv), overlap(inv), stderr)
			}
			if runs["temporal"] != runs["inprocess"] {
				t.Errorf("on Temporal %+v, in-process %+v", runs["temporal"], runs["inprocess"])
			}
			if r := runs["temporal"]; r.agents != tc.wantAgents || r.atOnce > tc.wantAtOnce {
				t.Errorf("on Temporal %d agents, %d at once; want %d, at most %d", r.agents, r.atOnce, tc.wantAgents, tc.wantAtOnce)
			}
		})
	}
}

// sizes masks a step's output size and the agent refused: which agents of a parallel step
// max_agents_per_run lets through differs between two runs.
var sizes = regexp.MustCompile(`\| \d+B \||a\d: agent a\d:`)

// overlap is the most spans that were open at one moment.
func overlap(spans []trace.Span) int {
	type edge struct {
		at time.Time
		d  int
	}
	var es []edge
	for _, sp := range spans {
		es = append(es, edge{sp.StartedAt, 1}, edge{sp.EndedAt, -1})
	}
	slices.SortFunc(es, func(a, b edge) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.d - b.d // an end at the same moment as a start comes first
	})
	n, most := 0, 0
	for _, e := range es {
		n += e.d
		most = max(most, n)
	}
	return most
}

// A workflow of three agents in a row, each using 100 tokens; the last
// would take long, so a run still going when it starts shows.
const (
	budgetYAML = `workflow: {name: spend, description: Three agents in a row}
agents:
  b1: {prompt: "First on {{inputs.topic}}"}
  b2: {prompt: "Then {{steps.one.output}}"}
  b3: {prompt: "Last {{steps.two.output}}"}
inputs:
  - {name: topic, type: string, required: true}
steps:
  - {id: one, agent: b1}
  - {id: two, agent: b2}
  - {id: three, agent: b3}
`
	budgetScript = `b1: [{say: one, tokens: {input: 60, output: 40}}]
b2: [{say: two, tokens: {input: 60, output: 40}}]
b3: [{say: three, latency: 20s, tokens: {input: 60, output: 40}}]
`
)

// delegation.token_budget counts the tokens of a workflow run's agents on
// Temporal as in-process: the second agent takes the run over 150 tokens,
// and the run ends with the in-process error.
func TestWorkflowRunTokenBudgetOnTemporalAsInProcess(t *testing.T) {
	addr := temporaltest.Start(t, "agentry-flowbudget")
	bin := buildAgentry(t)
	dir := flowSite(t, addr, "agentry-flowbudget", map[string]string{
		"workflows/spend.yaml": budgetYAML, "workflows/scripts/spend.script.yaml": budgetScript,
		"workflows/scripts/spend.inputs.json": `{"topic": "tokens"}`,
		"agentry.yaml": fmt.Sprintf("agents: agents\ndb: traces.db\nworkspace: work\nworkflows: workflows\nengine: temporal\n"+
			"temporal: {address: %q, namespace: agentry-flowbudget, task_queue: agentry-flowbudget}\ndelegation: {token_budget: 150}\n", addr)})
	startWorker(t, bin, dir)
	var got []string
	for _, engine := range []string{"temporal", "inprocess"} {
		start := time.Now()
		res, code, stderr := workflowRun(t, bin, dir, "spend", "AGENTRY_ENGINE="+engine)
		got = append(got, fmt.Sprintf("exit %d, status %v, report:\n%s", code, res["status"], masked.ReplaceAllString(fmt.Sprint(res["report"]), "…")))
		t.Logf("%s: %s in %s; stderr %s", engine, got[len(got)-1], time.Since(start), stderr)
		if time.Since(start) > 15*time.Second {
			t.Errorf("%s: the run went on %s after its token budget was spent", engine, time.Since(start))
		}
	}
	if got[0] != got[1] || !strings.Contains(got[0], "three: token budget exceeded: 200 tokens used of 150") {
		t.Errorf("on Temporal %s\nin-process %s", got[0], got[1])
	}
}
