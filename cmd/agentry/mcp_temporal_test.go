package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/otlp"
	"github.com/agentry/agentry/trace/semconv"
)

// callOverMCP makes one tools/call with the TypeScript SDK's client over
// serve's Streamable HTTP transport and returns the line it printed.
func callOverMCP(t *testing.T, base, tool string, args map[string]any, traceparent string) mcpWorkflowLine {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	step, _ := json.Marshal([]map[string]any{{"do": "call", "tool": tool, "args": args, "traceparent": traceparent}})
	out, errOut, err := mcpClientScript(t).Run(ctx, []string{"MCP_TRANSPORT=http", "MCP_URL=" + base + "/mcp"}, string(step))
	if err != nil {
		t.Fatalf("client: %v\nstderr:\n%s\nstdout:\n%s", err, errOut, out)
	}
	var line mcpWorkflowLine
	if err := json.Unmarshal([]byte(out), &line); err != nil || line.Result.Out.RunID == "" {
		t.Fatalf("%s answered no run: %s (%v)", tool, out, err)
	}
	return line
}

// On engine: temporal, an exposed agent called over MCP is held to
// expose.permissions (such a run stays in serve, which enforces them: a
// worker's request does not carry them), and a call with no exposure
// level runs on a worker with the caller and its traceparent on its root
// span, as in-process.
func TestMCPCallsOnTemporalKeepTheExposureLevelAndTheCaller(t *testing.T) {
	addr := temporaltest.Start(t, "agentry-expose")
	site := newTemporalSite(t, addr, "agentry-expose", `writer:
  - calls: [{tool: todo.write, args: {todos: [{content: "draft", status: pending}]}}]
  - say: "could not write"
leaf:
  - {say: leaf answer}
opener: [{say: opened}]
closer: [{say: closed}]
`)
	writeFile(t, site.agents, "writer.md", "---\nname: writer\ndescription: Writes things down\ntools:\n  allow: [todo.write]\n---\nWrite.\n")
	site.startWorker(t)
	const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

	// serve takes script models from serve.script_dir only.
	served := []string{"AGENTRY_SERVE__SCRIPT_DIR=" + site.dir, "AGENTRY_MODELS__DEFAULT=script:script.yaml"}
	held := site
	held.env = withEnv(site.env, append(served, "AGENTRY_EXPOSE__AGENTS=writer", "AGENTRY_EXPOSE__PERMISSIONS__TOOLS__DENY=todo.write")...)
	base, stop := held.startServe(t)
	run, spans := waitRun(t, site.db, callOverMCP(t, base, "writer", map[string]any{"task": "write it"}, "").Result.Out.RunID, time.Minute)
	stop()
	if run.Status != trace.StatusOK || run.Result != "could not write" || run.Durable {
		t.Errorf("writer's run = %s %q durable=%v, want ok, answered in serve", run.Status, run.Result, run.Durable)
	}
	refused := false
	for _, sp := range spans {
		if sp.Kind == trace.KindExecuteTool && sp.Attributes[semconv.AttrToolName] == "todo.write" {
			refused = sp.Status != trace.StatusOK && strings.Contains(sp.Error, "expose")
			if !refused {
				t.Errorf("todo.write = %s %q, want refused, naming expose.permissions", sp.Status, sp.Error)
			}
		}
	}
	if !refused {
		t.Errorf("no refused todo.write in writer's run: %+v", spans)
	}

	open := site
	open.env = withEnv(site.env, append(served, "AGENTRY_EXPOSE__AGENTS=leaf", "AGENTRY_EXPOSE__WORKFLOWS=pair")...)
	base, _ = open.startServe(t)
	run, spans = waitRun(t, site.db, callOverMCP(t, base, "leaf", map[string]any{"task": "answer"}, tp).Result.Out.RunID, time.Minute)
	if run.Status != trace.StatusOK || run.Result != "leaf answer" || !run.Durable {
		t.Errorf("leaf's run = %s %q durable=%v, want ok on Temporal", run.Status, run.Result, run.Durable)
	}
	checkCaller(t, "leaf's", spans[0], tp)

	// An exposed workflow runs on a worker too, and answers with the
	// outputs and the report the worker made.
	pair := callOverMCP(t, base, "workflow-pair", map[string]any{"topic": "tides"}, tp).Result
	if o := pair.Out; pair.IsError || o.Status != "ok" || o.Result != "closed" || !strings.Contains(o.Report, "Workflow Execution Report: pair") {
		t.Errorf("workflow-pair = %+v", pair)
	}
	if st := waitWorkflow(t, addr, "agentry-expose", pair.Out.RunID); st != enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
		t.Errorf("the workflow's run on Temporal = %s, want completed", st)
	}
	_, spans = waitRun(t, site.db, pair.Out.RunID, time.Minute)
	checkCaller(t, "the workflow's", spans[0], tp)
}

// checkCaller checks that a run's root span names the test client and its trace.
func checkCaller(t *testing.T, whose string, root trace.Span, tp string) {
	t.Helper()
	for k, want := range map[string]any{"caller.protocol": "mcp", "caller.name": "agentry-test-client", otlp.AttrTraceParent: tp} {
		if root.Attributes[k] != want {
			t.Errorf("%s root span %s = %v, want %v", whose, k, root.Attributes[k], want)
		}
	}
}

// withEnv is env with the variables of set, replacing those of the same name.
func withEnv(env []string, set ...string) []string {
	out := append([]string{}, set...)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(set, func(s string) bool { return strings.HasPrefix(s, name+"=") }) {
			out = append(out, kv)
		}
	}
	return out
}
