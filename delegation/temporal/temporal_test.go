package temporal_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"go.temporal.io/sdk/testsuite"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/delegation/tool/filesystem"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
)

// agentsFS is a coordinator with three sub-agents, one it may not use.
var agentsFS = fstest.MapFS{
	"coord.md":  {Data: []byte("---\nname: coord\ndescription: Leads.\nsubagents: {allow: [leaf, tooly]}\n---\nLead.\n")},
	"leaf.md":   {Data: []byte("---\nname: leaf\ndescription: Answers.\n---\nAnswer.\n")},
	"tooly.md":  {Data: []byte("---\nname: tooly\ndescription: Reads.\ntools: [filesystem.read_file]\n---\nRead.\n")},
	"secret.md": {Data: []byte("---\nname: secret\ndescription: Not for coord.\n---\nNo.\n")},
}

// coordScript: a batch of four delegations, one denied and one that
// depends on another, then a final answer.
const coordScript = `coord:
  - calls:
      - {tool: delegate, args: {agent: leaf, task: first, id: a}}
      - {tool: delegate, args: {agent: tooly, task: read it, id: b}}
      - {tool: delegate, args: {agent: secret, task: no}}
      - {tool: delegate, args: {agent: leaf, task: after a, depends_on: [a]}}
  - say: all done
leaf:
  - {say: leaf answer, tokens: {input: 10, output: 5}}
tooly:
  - calls: [{tool: filesystem.read_file, args: {path: note.txt}}]
  - {say: read, tokens: {input: 7, output: 3}}
`

type fixture struct {
	rt    *delegation.Runtime
	store *trace.Memory
	rec   *trace.Recorder
}

func newFixture(t testing.TB, scriptText string) *fixture {
	t.Helper()
	snap, err := registry.Load(agentsFS, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sm, err := script.Parse([]byte(scriptText))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ws, err := filesystem.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if err := writeNote(dir); err != nil {
		t.Fatal(err)
	}
	store := trace.NewMemory()
	rec := trace.NewRecorder(store, trace.RecorderConfig{})
	rt, err := delegation.New(delegation.Config{Agents: registry.New(snap), DefaultModel: "script", Sink: rec, Tools: ws.Tools(),
		Models: model.Providers{"script": func(string) (model.LLM, error) { return sm, nil }}})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{rt: rt, store: store, rec: rec}
}

func (f *fixture) runTemporal(t testing.TB, req delegation.Request) delegation.Result {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	temporal.Register(env, &temporal.Activities{Steps: f.rt.Steps(), Flush: f.rec.Flush})
	env.ExecuteWorkflow(temporal.RunWorkflowName, temporal.RunInput{Run: trace.Run{ID: trace.NewRunID()}, Request: req})
	if !env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res delegation.Result
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	return res
}

// shape is a run's trace with IDs and times left out: one line per span,
// sorted, naming its kind, name, agent, depth, status and, for a
// delegation, what the parent read back.
func shape(t testing.TB, f *fixture, runID string) []string {
	t.Helper()
	if err := f.rec.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans, err := f.store.Spans(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, sp := range spans {
		line := fmt.Sprintf("%s %q %s depth=%d %s", sp.Kind, sp.Name, sp.Agent, sp.Depth, sp.Status)
		if sp.Kind == trace.KindExecuteTool {
			line += fmt.Sprintf(" refused=%v err=%q", sp.Attributes[delegation.AttrRefused], sp.Error)
		}
		out = append(out, line)
	}
	slices.Sort(out)
	return out
}

func TestATemporalRunRecordsTheTraceAnInProcessRunRecords(t *testing.T) {
	req := delegation.Request{Agent: "coord", Task: "go"}
	in := newFixture(t, coordScript)
	want, err := in.rt.Run(context.Background(), req)
	if err != nil || want.Status != trace.StatusOK {
		t.Fatalf("in-process run = %+v, %v", want, err)
	}
	tf := newFixture(t, coordScript)
	got := tf.runTemporal(t, req)
	if got.Status != want.Status || got.Result != want.Result || got.Error != want.Error {
		t.Fatalf("temporal run = %+v, want %+v", got, want)
	}
	ws, gs := shape(t, in, want.RunID), shape(t, tf, got.RunID)
	if strings.Join(ws, "\n") != strings.Join(gs, "\n") {
		t.Errorf("temporal trace:\n%s\n\nin-process trace:\n%s", strings.Join(gs, "\n"), strings.Join(ws, "\n"))
	}
	run, err := tf.store.Run(context.Background(), got.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != trace.StatusOK || run.Agents != 4 || run.InputTokens != 27 || run.OutputTokens != 13 {
		t.Errorf("run record = %+v, want ok with 4 agents, 27 input and 13 output tokens", run)
	}
}
