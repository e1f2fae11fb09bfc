package temporal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/delegation/tool/filesystem"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
	"github.com/agentry/agentry/trace/semconv"
)

// agentsFS is a coordinator with three sub-agents, one it may not use.
var agentsFS = fstest.MapFS{
	"coord.md":  {Data: []byte("---\nname: coord\ndescription: Leads.\nsubagents: {allow: [leaf, tooly]}\n---\nLead.\n")},
	"leaf.md":   {Data: []byte("---\nname: leaf\ndescription: Answers.\n---\nAnswer.\n")},
	"tooly.md":  {Data: []byte("---\nname: tooly\ndescription: Reads.\ntools: [filesystem.read_file]\n---\nRead.\n")},
	"secret.md": {Data: []byte("---\nname: secret\ndescription: Not for coord.\n---\nNo.\n")},
	"slow.md":   {Data: []byte("---\nname: slow\ndescription: Takes too long.\ntimeout: 1s\n---\nWait.\n")},
	"fruit.md":  {Data: []byte("---\nname: fruit\ndescription: Counts.\nsubagents: {allow: [alpha, beta, gamma], execution: sequential}\n---\nCount.\n")},
	"alpha.md":  {Data: []byte("---\nname: alpha\ndescription: Apples.\n---\nCount.\n")},
	"beta.md":   {Data: []byte("---\nname: beta\ndescription: Pears.\ntools: [filesystem.read_file]\n---\nCount.\n")},
	"gamma.md":  {Data: []byte("---\nname: gamma\ndescription: Plums.\n---\nCount.\n")},
	"gate.md":   {Data: []byte("---\nname: gate\ndescription: Delegates, with approval.\nsubagents: {allow: [leaf], ask: [leaf]}\n---\nGo.\n")},
	"looper.md": {Data: []byte("---\nname: looper\ndescription: Never done.\nmax_turns: 2\ntools: [filesystem.read_file]\n---\nLoop.\n")},
	"orch.md":   {Data: []byte("---\nname: orch\ndescription: Dispatches.\norchestrator: true\ntools: [filesystem.read_file]\n---\nDispatch.\n")},
	"bg.md":     {Data: []byte("---\nname: bg\ndescription: Delegates in the background.\nsubagents: {allow: [leaf]}\n---\nGo.\n")},
	"boss.md":   {Data: []byte("---\nname: boss\ndescription: Delegates to an orchestrator.\nsubagents: {allow: [orch]}\n---\nGo.\n")},
	"stream.md": {Data: []byte("---\nname: stream\ndescription: Streams.\nsubagents: {allow: [leaf, tooly], execution: parallel_streaming}\n---\nGo.\n")},
	"narrow.md": {Data: []byte("---\nname: narrow\ndescription: One at a time.\nsubagents: {allow: [leaf], max_concurrent: 1}\n---\nGo.\n")},
	"asker.md":  {Data: []byte("---\nname: asker\ndescription: Reads, with approval.\ntools: {allow: [filesystem.read_file], ask: [filesystem.read_file]}\n---\nRead.\n")},
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
  - {error: overloaded}
  - {say: leaf answer, tokens: {input: 10, output: 5}}
tooly:
  - calls: [{tool: filesystem.read_file, args: {path: note.txt}}]
  - {say: read, tokens: {input: 7, output: 3}}
`

type fixture struct {
	dir   string // the workspace
	rt    *delegation.Runtime
	store *memory.Store
	rec   *trace.Recorder
	keys  *keyRecorder
}

// spans is the run's trace once everything recorded is in the store.
func (f *fixture) spans(t testing.TB, runID string) []trace.Span {
	t.Helper()
	if err := f.rec.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans, err := f.store.Spans(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	return spans
}

// keyRecorder wraps a tool and keeps the idempotency key of each call.
type keyRecorder struct {
	tool.Tool
	mu   sync.Mutex
	keys []string
}

func (k *keyRecorder) Call(ctx context.Context, args json.RawMessage) (string, error) {
	k.mu.Lock()
	k.keys = append(k.keys, tool.IdempotencyKey(ctx))
	k.mu.Unlock()
	return k.Tool.Call(ctx, args)
}

func newFixture(t testing.TB, scriptText string, opts ...func(*delegation.Config)) *fixture {
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
	if err := os.WriteFile(filepath.Join(dir, "note.txt"), []byte("the note"), 0o644); err != nil {
		t.Fatal(err)
	}
	store := memory.New()
	rec := trace.NewRecorder(store, trace.RecorderConfig{})
	tools := ws.Tools()
	keys := &keyRecorder{}
	for i, tl := range tools {
		if tl.Spec().Name == "filesystem.read_file" {
			keys.Tool = tl
			tools[i] = keys
		}
	}
	cfg := delegation.Config{Agents: registry.New(snap), DefaultModel: "script", Sink: rec, Tools: tools, Approvals: store,
		RetryBackoff: time.Millisecond, Logger: slog.New(slog.DiscardHandler),
		Models: model.Providers{"script": func(string) (model.LLM, error) { return sm, nil }}}
	for _, o := range opts {
		o(&cfg)
	}
	rt, err := delegation.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{dir: dir, rt: rt, store: store, rec: rec, keys: keys}
}

func (f *fixture) runTemporal(t testing.TB, req delegation.Request, opts ...func(*testsuite.TestWorkflowEnvironment)) delegation.Result {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := s.NewTestWorkflowEnvironment()
	temporal.Register(env, &temporal.Activities{Steps: f.rt.Steps(), Flush: f.rec.Flush})
	for _, o := range opts {
		o(env)
	}
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
	spans := f.spans(t, runID)
	var out []string
	for _, sp := range spans {
		line := fmt.Sprintf("%s %q %s depth=%d %s", sp.Kind, sp.Name, sp.Agent, sp.Depth, sp.Status)
		if sp.Kind == trace.KindChat {
			line += fmt.Sprintf(" attempt=%v err=%q", sp.Attributes[semconv.AttrRetryAttempt], sp.Error)
		}
		if sp.Kind == trace.KindExecuteTool {
			line += fmt.Sprintf(" refused=%v err=%q", sp.Attributes[delegation.AttrRefused], sp.Error)
		}
		out = append(out, line)
	}
	slices.Sort(out)
	return out
}

// Cancelling the workflow in the middle of a batch (as the one tool call
// completes, while the other sub-agents are under way) ends the run
// cancelled, with every span closed.
func TestCancellingTheWorkflowCancelsTheRun(t *testing.T) {
	f := newFixture(t, coordScript)
	var inflight atomic.Int64
	got := f.runTemporal(t, delegation.Request{Agent: "coord", Task: "go"}, func(env *testsuite.TestWorkflowEnvironment) {
		env.SetOnActivityStartedListener(func(*activity.Info, context.Context, converter.EncodedValues) { inflight.Add(1) })
		env.SetOnActivityCompletedListener(func(info *activity.Info, _ converter.EncodedValue, _ error) {
			inflight.Add(-1)
			if info.ActivityType.Name == "Tool" {
				env.CancelWorkflow()
			}
		})
	})
	if got.Status != trace.StatusCancelled {
		t.Fatalf("run = %+v, want cancelled", got)
	}
	// The test environment, unlike a server, does not wait for a cancelled
	// call to return before the workflow ends; wait for them here.
	for deadline := time.Now().Add(10 * time.Second); inflight.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	for _, line := range shape(t, f, got.RunID) {
		if strings.Contains(line, " running") {
			t.Errorf("span left running: %s", line)
		}
	}
	run, err := f.store.Run(context.Background(), got.RunID)
	if err != nil || run.Status != trace.StatusCancelled {
		t.Errorf("run record = %+v, %v; want cancelled", run, err)
	}
}

// A run of an agent that does not exist ends with an error, and its run
// record says why, as an in-process Start records a rejected run.
func TestARunOfAnUnknownAgentIsRecordedAsRejected(t *testing.T) {
	f := newFixture(t, coordScript)
	got := f.runTemporal(t, delegation.Request{Agent: "nobody", Task: "go"})
	if got.Status != trace.StatusError || !strings.Contains(got.Error, "unknown agent") {
		t.Fatalf("run = %+v, want an unknown-agent error", got)
	}
	if err := f.rec.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	run, err := f.store.Run(context.Background(), got.RunID)
	if err != nil || run.Status != trace.StatusError || run.Error != got.Error || run.EndedAt.IsZero() {
		t.Errorf("run record = %+v, %v; want the error, ended", run, err)
	}
}
