package mcp_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/delegation/workflow"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/memory"
	"github.com/agentry/agentry/web/core"
	"github.com/agentry/agentry/web/mcp"
)

// env is an MCP server over a real runtime (script model, memory store)
// and a Go SDK client connected to it in memory.
type env struct {
	reg     *registry.Registry
	flows   *workflow.Catalog
	store   *memory.Store
	session *sdk.ClientSession
	mu      sync.Mutex
	lines   []string
	changed chan struct{}
}

func agentFile(name, extra string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " agent\n" + extra + "---\nYou are " + name + ".\n"
}

func load(t *testing.T, files map[string]string) *registry.Snapshot {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, text := range files {
		fsys[name+".md"] = &fstest.MapFile{Data: []byte(text)}
	}
	snap, err := registry.Load(fsys, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// todo is a tool for the asking agent to call.
type todo struct{}

func (todo) Spec() model.Tool {
	return model.Tool{Name: "todo.write", Description: "writes", Parameters: []byte(`{"type":"object"}`)}
}
func (todo) Call(context.Context, json.RawMessage) (string, error) { return "written", nil }

// runner starts runs on rt and closes Done once their end is in the store.
type runner struct {
	rt  *delegation.Runtime
	rec *trace.Recorder
}

type flushed struct {
	*delegation.Execution
	done chan struct{}
}

func (f flushed) Done() <-chan struct{} { return f.done }

func (r runner) Start(ctx context.Context, req core.RunRequest) (core.Execution, error) {
	ex, err := r.rt.Start(ctx, delegation.Request{Agent: req.Agent, Task: req.Task, Tools: req.Tools})
	if err != nil {
		return nil, err
	}
	f := flushed{ex, make(chan struct{})}
	go func() { <-ex.Done(); _ = r.rec.Flush(context.Background()); close(f.done) }()
	_ = r.rec.Flush(ctx)
	return f, nil
}

// flowRunner starts workflow runs on rt as serve does.
type flowRunner struct{ rt *delegation.Runtime }

func (f flowRunner) Start(ctx context.Context, r core.WorkflowRunRequest) (core.Execution, error) {
	return workflow.Start(ctx, f.rt, r.Workflow, r.Model, workflow.Options{Inputs: r.Inputs, Tools: r.Tools, Attributes: r.Caller.Attributes()}), nil
}

func newEnv(t *testing.T, files map[string]string, scriptText string, expose core.Exposure, elicit func(*sdk.ElicitRequest) *sdk.ElicitResult) *env {
	t.Helper()
	return newEnvWithFlows(t, files, nil, scriptText, expose, elicit)
}

// newEnvWithFlows is newEnv whose server also runs the workflows of flows
// (file name → text) as the serve's start form does.
func newEnvWithFlows(t *testing.T, files, flows map[string]string, scriptText string, expose core.Exposure, elicit func(*sdk.ElicitRequest) *sdk.ElicitResult) *env {
	t.Helper()
	e := &env{reg: registry.New(load(t, files)), store: memory.New(), changed: make(chan struct{}, 8), flows: workflow.NewCatalog(nil)}
	fsys := fstest.MapFS{}
	for name, text := range flows {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
	}
	if err := e.flows.Load(fsys); err != nil {
		t.Fatal(err)
	}
	sm, err := script.Parse([]byte(scriptText))
	if err != nil {
		t.Fatal(err)
	}
	rec := trace.NewRecorder(e.store, trace.RecorderConfig{Interval: 5 * time.Millisecond})
	t.Cleanup(func() { rec.Close(context.Background()) })
	rt, err := delegation.New(delegation.Config{Agents: e.reg, DefaultModel: "script", Sink: rec, Approvals: e.store,
		Models: model.Providers{"script": func(string) (model.LLM, error) { return sm, nil }},
		Tools:  []tool.Tool{todo{}}, GlobalTools: registryAllowAll(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	srv, err := mcp.New(mcp.Config{Agents: e.reg, Expose: expose, Runner: runner{rt, rec}, Live: core.NewLive(stop),
		Workflows: e.flows, WorkflowRunner: flowRunner{rt}, Store: e.store, Approvals: e.store, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	opts := &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			e.mu.Lock()
			e.lines = append(e.lines, r.Params.Message)
			e.mu.Unlock()
		},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { e.changed <- struct{}{} },
	}
	if elicit != nil {
		opts.ElicitationHandler = func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) { return elicit(r), nil }
	}
	ct, st := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	client := sdk.NewClient(&sdk.Implementation{Name: "go-test", Version: "0"}, opts)
	serverDone := make(chan error, 1)
	go func() { serverDone <- mcp.Serve(srv, ctx, st) }()
	// The protocol of today's clients (the TypeScript SDK's, Claude Code's),
	// on which a server may ask while a call goes.
	e.session, err = client.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.session.Close() })
	return e
}

func registryAllowAll() permissions.Rules { return permissions.Rules{Allow: []string{"*"}} }

func (e *env) tools(t *testing.T) []string {
	t.Helper()
	res, err := e.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func TestTheToolListIsTheExposedEnabledAgentsAndFollowsTheFiles(t *testing.T) {
	files := map[string]string{
		"alpha": agentFile("alpha", ""), "alpine": agentFile("alpine", "enabled: false\n"),
		"beta": agentFile("beta", ""), "gamma": agentFile("gamma", ""),
	}
	e := newEnv(t, files, "alpha: [{say: hi}]\n", core.Exposure{Agents: []string{"al*", "gamma"},
		Policy: permissions.Delegation{Disabled: []string{"gamma"}}}, nil)
	if got := e.tools(t); !slices.Equal(got, []string{"alpha"}) {
		t.Fatalf("tools = %v, want alpha alone (alpine is disabled, beta not exposed, gamma disabled globally)", got)
	}
	files["alto"] = agentFile("alto", "")
	e.reg.Replace(load(t, files))
	select {
	case <-e.changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/tools/list_changed after an exposed agent appeared")
	}
	if got := e.tools(t); !slices.Equal(got, []string{"alpha", "alto"}) {
		t.Fatalf("tools = %v after alto.md appeared", got)
	}
	_, err := e.session.CallTool(context.Background(), &sdk.CallToolParams{Name: "beta", Arguments: map[string]any{"task": "x"}})
	if err == nil || !strings.Contains(err.Error(), "beta") {
		t.Errorf("calling an agent that is not exposed: %v, want an unknown-tool error", err)
	}
}

func TestProgressLinesComeInTheOrderTheRunWentAndADeclinedAskIsADenial(t *testing.T) {
	files := map[string]string{
		"lead":   agentFile("lead", "subagents:\n  allow: [helper]\ntools:\n  ask: [todo.write]\n"),
		"helper": agentFile("helper", ""),
	}
	var asked []string
	e := newEnv(t, files, `lead:
  - calls: [{tool: todo.write}]
  - calls: [{tool: delegate, args: {agent: helper, task: help}}]
  - say: done
helper:
  - {latency: 50ms, say: helped}
`, core.Exposure{Agents: []string{"lead"}}, func(r *sdk.ElicitRequest) *sdk.ElicitResult {
		asked = append(asked, r.Params.Message)
		return &sdk.ElicitResult{Action: "decline"}
	})
	params := &sdk.CallToolParams{Name: "lead", Arguments: map[string]any{"task": "go"}}
	params.SetProgressToken("p")
	res, err := e.session.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	out := res.StructuredContent.(map[string]any)
	if res.IsError || out["status"] != "ok" || out["result"] != "done" {
		t.Fatalf("result = %+v", out)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "lead wants to call todo.write") {
		t.Errorf("elicitations = %q", asked)
	}
	// The client may hear the last lines after the result: wait for them.
	var lines []string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		e.mu.Lock()
		lines = slices.Clone(e.lines)
		e.mu.Unlock()
		if len(lines) > 0 && strings.HasPrefix(lines[len(lines)-1], "✓ lead ok") {
			break
		}
	}
	want := []string{"▶ lead started: go", "  ⊘ todo.write denied by mcp:go-test: declined in the MCP client", "  ▶ helper started: help", "  ✓ helper ok in", "✓ lead ok in"}
	i := 0
	for _, l := range lines {
		if i < len(want) && strings.HasPrefix(l, want[i]) {
			i++
		}
	}
	if i != len(want) {
		t.Errorf("progress lines:\n%s\nwant, in this order, lines starting:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	approvals, _ := e.store.Approvals(context.Background(), approval.Filter{RunID: out["run_id"].(string)})
	if len(approvals) != 1 || approvals[0].Status != approval.Denied || approvals[0].DecidedBy != "mcp:go-test" {
		t.Errorf("approvals = %+v, want one denied by the client", approvals)
	}
}

// A workflow's tool is followed as an agent's: progress lines while it
// goes, and a cancelled call cancels its run, which ends cancelled. The
// list follows the workflows folder.
func TestAWorkflowCallStreamsProgressAndIsCancelledWithTheCall(t *testing.T) {
	files := map[string]string{"thinker": agentFile("thinker", "")}
	flows := map[string]string{"ponder.yaml": "workflow: {name: ponder, description: Ponders}\ninputs:\n  - {name: q, type: string, required: true}\n" +
		"steps:\n  - {id: think, agent: thinker, input: \"{{inputs.q}}\"}\n"}
	e := newEnvWithFlows(t, files, flows, "thinker:\n  - {latency: 60s, say: too late}\n", core.Exposure{Workflows: []string{"*"}}, nil)
	if got := e.tools(t); !slices.Equal(got, []string{"workflow-ponder"}) {
		t.Fatalf("tools = %v, want the workflow's alone", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	params := &sdk.CallToolParams{Name: "workflow-ponder", Arguments: map[string]any{"q": "why?"}}
	params.SetProgressToken("w")
	go func() { // cancel once the step's agent has said it started
		for ctx.Err() == nil {
			e.mu.Lock()
			started := slices.ContainsFunc(e.lines, func(l string) bool { return strings.Contains(l, "thinker started") })
			e.mu.Unlock()
			if started {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	if _, err := e.session.CallTool(ctx, params); err == nil {
		t.Fatal("the cancelled call answered")
	}
	cancel()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		page, err := e.store.Runs(context.Background(), trace.RunFilter{Agent: "ponder"})
		if err == nil && len(page.Runs) == 1 && page.Runs[0].Status.IsFinal() {
			if st := page.Runs[0].Status; st != trace.StatusCancelled {
				t.Errorf("the workflow's run ended %s, want cancelled", st)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the workflow's run did not end after the call was cancelled: %+v %v", page, err)
		}
	}

	flows["later.yaml"] = "workflow: {name: later}\nsteps:\n  - {id: a, agent: thinker}\n"
	e.flows.Apply([]registry.Change{{Path: "later.yaml", Data: []byte(flows["later.yaml"])}})
	select {
	case <-e.changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/tools/list_changed after an exposed workflow appeared")
	}
	if got := e.tools(t); !slices.Equal(got, []string{"workflow-later", "workflow-ponder"}) {
		t.Errorf("tools = %v after later.yaml appeared", got)
	}
}
