package temporal_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// fruitScript (as delegation's budget test): coord's first turn and alpha
// spend 140 tokens, beta's first turn takes a 150-token budget over while
// its tool call still runs; gamma is never started.
const fruitScript = `
fruit:
  - tokens: {input: 50, output: 10}
    calls:
      - {tool: delegate, args: {agent: alpha, task: "count the apples"}}
      - {tool: delegate, args: {agent: beta, task: "count the pears"}}
      - {tool: delegate, args: {agent: gamma, task: "count the plums"}}
  - say: "all counted"
alpha:
  - {say: "7 apples", tokens: {input: 60, output: 20}}
beta:
  - tokens: {input: 30, output: 10}
    calls:
      - {tool: filesystem.read_file, args: {path: note.txt}}
  - say: "5 pears"
gamma:
  - say: "2 plums"
`

// A budget is counted over the whole tree of workflows: the trip in one
// child workflow stops the next model call of another and refuses the
// delegation not yet started, and the root ends with the in-process
// partial-progress report.
func TestABudgetOnTemporalTripsOverTheTreeWithTheInProcessReport(t *testing.T) {
	req := delegation.Request{Agent: "fruit", Task: "count the fruit", Budget: registry.Budget{Tokens: 150}}
	in := newFixture(t, fruitScript)
	want, err := in.rt.Run(t.Context(), req)
	if err != nil || want.Status != trace.StatusLimit {
		t.Fatalf("in-process run = %+v, %v", want, err)
	}
	tf := newFixture(t, fruitScript)
	got := tf.runTemporal(t, req, signalsToTheRoot)
	mask := func(r delegation.Result) string {
		s := strings.ReplaceAll(r.Result, r.RunID, "RUN")
		return regexp.MustCompile(`[0-9.]+m?s of wall clock`).ReplaceAllString(s, "T of wall clock")
	}
	if got.Status != trace.StatusLimit || mask(got) != mask(want) || got.Error != want.Error {
		t.Errorf("temporal run %s %q:\n%s\nin-process %s %q:\n%s", got.Status, got.Error, mask(got), want.Status, want.Error, mask(want))
	}
	if !strings.Contains(got.Result, "gamma: \"count the plums\" (not started") {
		t.Errorf("report does not list gamma as not started:\n%s", got.Result)
	}
	ws, gs := shape(t, in, want.RunID), shape(t, tf, got.RunID)
	if strings.Join(ws, "\n") != strings.Join(gs, "\n") {
		t.Errorf("temporal trace:\n%s\n\nin-process trace:\n%s", strings.Join(gs, "\n"), strings.Join(ws, "\n"))
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
