package temporal_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/orchestrator"
	"github.com/agentry/agentry/trace"
)

func caps(maxConcurrent, maxAgents int, tokenBudget int64) func(*delegation.Config) {
	return func(c *delegation.Config) {
		c.MaxConcurrent, c.MaxAgentsPerRun, c.TokenBudget = maxConcurrent, maxAgents, tokenBudget
	}
}

// max_agents_per_run counts over the tree of workflows: the delegation
// past the cap is refused as in-process, and the traces match.
func TestMaxAgentsPerRunOnTemporalCountsOverTheTree(t *testing.T) {
	req := delegation.Request{Agent: "coord", Task: "go"}
	in := newFixture(t, coordScript, caps(0, 3, 0))
	want, err := in.rt.Run(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	tf := newFixture(t, coordScript, caps(0, 3, 0))
	got := tf.runTemporal(t, req, signalsToTheRoot)
	if got.Status != want.Status || got.Result != want.Result {
		t.Errorf("temporal run = %+v, want %+v", got, want)
	}
	ws, gs := shape(t, in, want.RunID), shape(t, tf, got.RunID)
	if strings.Join(ws, "\n") != strings.Join(gs, "\n") {
		t.Errorf("temporal trace:\n%s\n\nin-process trace:\n%s", strings.Join(gs, "\n"), strings.Join(ws, "\n"))
	}
	if !strings.Contains(strings.Join(gs, "\n"), "refused="+delegation.RefusedMaxAgents) {
		t.Errorf("no delegation refused for max agents:\n%s", strings.Join(gs, "\n"))
	}
}

// slowLeaves: three leaves at once, each model call taking 40 ms.
const slowLeaves = `coord:
  - calls:
      - {tool: delegate, args: {agent: leaf, task: one}}
      - {tool: delegate, args: {agent: leaf, task: two}}
      - {tool: delegate, args: {agent: leaf, task: three}}
  - say: done
leaf:
  - {say: fine, latency: 40ms}
`

// delegation.max_concurrent counts over the tree: with a cap of one, the
// leaves' model calls never overlap (the coordinator gives its slot up
// while its batch runs, as in-process); without it they do.
func TestMaxConcurrentOnTemporalCapsTheTree(t *testing.T) {
	overlaps := func(maxConcurrent int) int {
		f := newFixture(t, slowLeaves, caps(maxConcurrent, 0, 0))
		got := f.runTemporal(t, delegation.Request{Agent: "coord", Task: "go"}, signalsToTheRoot)
		if got.Status != trace.StatusOK {
			t.Fatalf("run = %+v", got)
		}
		if err := f.rec.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		spans, _ := f.store.Spans(t.Context(), got.RunID)
		var calls [][2]time.Time
		for _, sp := range spans {
			if sp.Kind == trace.KindChat && sp.Agent == "leaf" {
				calls = append(calls, [2]time.Time{sp.StartedAt, sp.EndedAt})
			}
		}
		if len(calls) != 3 {
			t.Fatalf("%d leaf calls, want 3", len(calls))
		}
		n := 0
		for i := range calls {
			for j := i + 1; j < len(calls); j++ {
				if calls[i][0].Before(calls[j][1]) && calls[j][0].Before(calls[i][1]) {
					n++
				}
			}
		}
		return n
	}
	if n := overlaps(1); n != 0 {
		t.Errorf("with max_concurrent 1, %d pairs of leaf calls overlapped", n)
	}
	if n := overlaps(0); n == 0 {
		t.Errorf("without a cap no leaf calls overlapped: the test cannot tell")
	}
}

// token_budget stops the whole run with the in-process error once the
// tree's tokens pass it.
func TestTokenBudgetOnTemporalStopsTheRun(t *testing.T) {
	req := delegation.Request{Agent: "coord", Task: "go"}
	in := newFixture(t, coordScript, caps(0, 0, 20))
	want, err := in.rt.Run(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	tf := newFixture(t, coordScript, caps(0, 0, 20))
	got := tf.runTemporal(t, req, signalsToTheRoot)
	if want.Status != trace.StatusError || !strings.Contains(want.Error, delegation.ErrTokenBudget.Error()) {
		t.Fatalf("in-process run = %+v, want the token budget's error", want)
	}
	// How far past the budget a run gets depends on which parallel branch
	// reports first, in-process too; the status and the words are the same.
	prefix := delegation.ErrTokenBudget.Error() + ": "
	if got.Status != want.Status || !strings.HasPrefix(got.Error, prefix) || !strings.HasSuffix(got.Error, " tokens used of 20") {
		t.Errorf("temporal run %s %q, in-process %s %q", got.Status, got.Error, want.Status, want.Error)
	}
	// The branches it stopped end as in-process: error, with its words
	// (they used to end cancelled on Temporal).
	for _, sp := range tf.spans(t, got.RunID) {
		if sp.Status == trace.StatusCancelled || sp.Kind == trace.KindInvokeAgent && sp.Status == trace.StatusError && !strings.HasPrefix(sp.Error, prefix) {
			t.Errorf("%s %s ended %s %q, want the token budget's error", sp.Kind, sp.Name, sp.Status, sp.Error)
		}
	}
}

// sameRun runs req in-process and on Temporal under opts and compares
// status, result, error and the trace's shape.
func sameRun(t *testing.T, script string, req delegation.Request, opts ...func(*delegation.Config)) delegation.Result {
	t.Helper()
	in := newFixture(t, script, opts...)
	want, err := in.rt.Run(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	tf := newFixture(t, script, opts...)
	got := tf.runTemporal(t, req, signalsToTheRoot)
	mask := func(s, id string) string { return strings.ReplaceAll(s, id, "RUN") }
	if got.Status != want.Status || mask(got.Result, got.RunID) != mask(want.Result, want.RunID) || got.Error != want.Error {
		t.Errorf("temporal run %s %q %q\nin-process %s %q %q", got.Status, got.Result, got.Error, want.Status, want.Result, want.Error)
	}
	ws, gs := shape(t, in, want.RunID), shape(t, tf, got.RunID)
	if strings.Join(ws, "\n") != strings.Join(gs, "\n") {
		t.Errorf("temporal trace:\n%s\n\nin-process trace:\n%s", strings.Join(gs, "\n"), strings.Join(ws, "\n"))
	}
	return want
}

// limits.window_calls counts the run's tool calls in workflow time: the
// calls past it are not run and the agent stops with status limit and its
// work so far, as in-process.
func TestTheConversationWindowOnTemporalCountsTheRunsToolCalls(t *testing.T) {
	const script = "tooly:\n  - calls: [{tool: filesystem.read_file, args: {path: note.txt}}, {tool: filesystem.read_file, args: {path: note.txt}}]\n" +
		"  - calls: [{tool: filesystem.read_file, args: {path: note.txt}}, {tool: filesystem.read_file, args: {path: note.txt}}]\n  - say: read\n"
	want := sameRun(t, script, delegation.Request{Agent: "tooly", Task: "read"}, func(c *delegation.Config) {
		c.Limits = orchestrator.Limits{WindowCalls: 3, Window: time.Hour}
	})
	if want.Status != trace.StatusLimit || !strings.Contains(want.Error, "limits.window_calls") {
		t.Fatalf("in-process run = %+v, want the window's limit", want)
	}
}

// max_turns without a final answer ends with status limit and the work so
// far, as in-process.
func TestMaxTurnsOnTemporalEndsWithTheWorkSoFar(t *testing.T) {
	const script = "looper:\n  - calls: [{tool: filesystem.read_file, args: {path: note.txt}}]\n  - calls: [{tool: filesystem.read_file, args: {path: note.txt}}]\n  - say: never\n"
	want := sameRun(t, script, delegation.Request{Agent: "looper", Task: "loop"})
	if want.Status != trace.StatusLimit || !strings.Contains(want.Result, "Done:\n- filesystem.read_file → the note") {
		t.Fatalf("in-process run = %+v, want the turn limit", want)
	}
}

// A child's window lease (ledger.go) keeps the window's meaning: with 20
// calls an hour, a child that makes three single calls (the first asked,
// the next two on its lease), then 8, 8 and 2 gets the same calls and
// the same refusal as in-process.
func TestAWindowLeaseOnTemporalKeepsTheWindowsCount(t *testing.T) {
	read := "{tool: filesystem.read_file, args: {path: note.txt}}"
	turn := func(n int) string {
		return "  - calls: [" + strings.TrimSuffix(strings.Repeat(read+", ", n), ", ") + "]\n"
	}
	script := "coord:\n  - calls: [{tool: delegate, args: {agent: tooly, task: read}}]\n  - say: done\n" +
		"tooly:\n" + turn(1) + turn(1) + turn(1) + turn(8) + turn(8) + turn(2) + "  - say: read\n"
	sameRun(t, script, delegation.Request{Agent: "coord", Task: "go"}, func(c *delegation.Config) {
		c.Limits = orchestrator.Limits{WindowCalls: 20, Window: time.Hour}
	})
	in := newFixture(t, script, func(c *delegation.Config) { c.Limits = orchestrator.Limits{WindowCalls: 20, Window: time.Hour} })
	res, err := in.rt.Run(t.Context(), delegation.Request{Agent: "coord", Task: "go"})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Join(shape(t, in, res.RunID), "\n")
	if n := strings.Count(lines, "execute_tool filesystem.read_file"); n != 19 || !strings.Contains(lines, `invoke_agent "invoke_agent tooly" tooly depth=1 limit`) {
		t.Errorf("in-process: %d calls recorded, want 19 (the delegation is the 20th), and tooly stopped by the window:\n%s", n, lines)
	}
}

// signalsToTheRoot delivers signals from child workflows to the run's
// workflow: the test environment knows only children as signal targets.
// The root's ID is the only one of a run without a "-".
func signalsToTheRoot(env *testsuite.TestWorkflowEnvironment) {
	env.OnSignalExternalWorkflow(mock.Anything, mock.Anything, "", mock.Anything, mock.Anything).Return(
		func(_, id, _, name string, arg any) error {
			if !strings.Contains(id, "-") {
				env.SignalWorkflow(name, arg)
			}
			return nil
		})
}
