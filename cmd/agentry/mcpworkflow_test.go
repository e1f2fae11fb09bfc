package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
	"github.com/agentry/agentry/web/core"
)

// briefFlow is an exposed workflow: two steps, a required and a defaulted
// input; its second step's agent (scribe) tries a tool expose.permissions
// denies.
const briefFlow = `workflow: {name: brief, description: Writes a brief on a topic}
inputs:
  - {name: topic, type: string, required: true, description: What the brief is about}
  - {name: pages, type: number, default: 2}
agents:
  outliner: {prompt: "Outline {{inputs.topic}} in {{inputs.pages}} pages"}
steps:
  - {id: outline, agent: outliner, output: {store_as: outline}}
  - {id: write, agent: scribe, input: "Write {{steps.outline.output}}"}
`

// mcpWorkflowProject is a folder whose `agentry mcp` exposes the agent
// fast and the workflows named br*, under expose.permissions that deny
// todo.write; internal.yaml is a workflow that is not exposed.
func mcpWorkflowProject(t *testing.T) (dir string) {
	dir = t.TempDir()
	agents, flows := filepath.Join(dir, "agents"), filepath.Join(dir, "workflows")
	writeFile(t, agents, "fast.md", "---\nname: fast\ndescription: Answers at once\n---\nYou answer.\n")
	writeFile(t, agents, "scribe.md", "---\nname: scribe\ndescription: Writes things down\ntools:\n  allow: [todo.write]\n---\nYou write.\n")
	writeFile(t, flows, "brief.yaml", briefFlow)
	writeFile(t, flows, "internal.yaml", "workflow: {name: internal, description: Not for outsiders}\nsteps:\n  - {id: a, agent: fast}\n")
	script := writeFile(t, dir, "s.yaml", `outliner:
  - say: "1. why 2. how"
scribe:
  - calls: [{tool: todo.write, args: {todos: [{content: "write", status: pending}]}}]
  - say: "the brief"
`)
	writeFile(t, dir, "agentry.yaml", `agents: `+agents+`
workflows: `+flows+`
db: `+filepath.Join(dir, "t.db")+`
workspace: `+dir+`
models:
  default: script:`+script+`
expose:
  agents: [fast]
  workflows: ["br*"]
  permissions:
    tools: {deny: [todo.write]}
`)
	return dir
}

// mcpWorkflowLine is one line the TypeScript client printed.
type mcpWorkflowLine struct {
	Step  string `json:"step"`
	Tools []struct {
		Name        string `json:"name"`
		InputSchema struct {
			Properties map[string]struct {
				Type        string `json:"type"`
				Description string `json:"description"`
				Default     any    `json:"default"`
			} `json:"properties"`
			Required []string `json:"required"`
		} `json:"inputSchema"`
		OutputSchema map[string]any `json:"outputSchema"`
	} `json:"tools"`
	Result struct {
		IsError bool `json:"isError"`
		Content []struct{ Text string }
		Out     core.WorkflowOutcome `json:"structuredContent"`
	} `json:"result"`
	Progress []string `json:"progress"`
}

func TestTheTypeScriptSDKClientRunsAnExposedWorkflowOverStdio(t *testing.T) {
	dir := mcpWorkflowProject(t)
	bin := buildTraceTestBinary(t)
	script := mcpClientScript(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	steps := `[
 {"do": "list"},
 {"do": "call", "tool": "workflow-brief", "args": {"topic": "tides"},
  "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
 {"do": "call", "tool": "workflow-brief", "args": {"pages": 3}}
]`
	out, errOut, err := script.Run(ctx, []string{"MCP_COMMAND=" + bin, `MCP_ARGS=["mcp", "--config", "` + filepath.Join(dir, "agentry.yaml") + `"]`, "MCP_CWD=" + dir}, steps)
	if err != nil {
		t.Fatalf("client: %v\nstderr:\n%s\nstdout:\n%s", err, errOut, out)
	}
	var lines []mcpWorkflowLine
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var line mcpWorkflowLine
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("client printed %q: %v", l, err)
		}
		lines = append(lines, line)
	}
	if len(lines) != 3 {
		t.Fatalf("client printed %d lines, want 3:\n%s", len(lines), out)
	}

	// The list: the exposed agent and workflow, not the internal workflow;
	// the workflow's tool takes its inputs.
	var names []string
	for _, tool := range lines[0].Tools {
		names = append(names, tool.Name)
		if tool.Name != "workflow-brief" {
			continue
		}
		props, req := tool.InputSchema.Properties, tool.InputSchema.Required
		if props["topic"].Type != "string" || props["topic"].Description != "What the brief is about" ||
			props["pages"].Type != "number" || props["pages"].Default != 2.0 || !slices.Equal(req, []string{"topic"}) {
			t.Errorf("workflow-brief's input schema = %+v", tool.InputSchema)
		}
		if tool.OutputSchema["properties"] == nil {
			t.Errorf("workflow-brief declares no outputSchema: %v", tool.OutputSchema)
		}
	}
	if want := []string{"fast", "workflow-brief"}; !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v (internal is not exposed)", names, want)
	}

	// The call: the workflow's result and run ID, its outputs and report.
	call := lines[1].Result
	o := call.Out
	if call.IsError || o.Status != "ok" || o.Workflow != "brief" || o.RunID == "" || o.Result != "the brief" ||
		o.Outputs["outline"] != "1. why 2. how" || !strings.Contains(o.Report, "Workflow Execution Report: brief") {
		t.Fatalf("workflow-brief's result = %+v", call)
	}
	if len(call.Content) != 1 || call.Content[0].Text != "the brief" {
		t.Errorf("text content = %+v, want the workflow's final result", call.Content)
	}
	// A missing required input is the caller's error, and starts nothing.
	if bad := lines[2].Result; !bad.IsError || len(bad.Content) == 0 || !strings.Contains(bad.Content[0].Text, "topic") {
		t.Errorf("a call without topic = %+v, want an error naming it", bad)
	}

	// The trace: the run is the workflow's as `workflow run` records it,
	// with the caller and its trace on the root span, and the step's agent
	// held to expose.permissions.
	store, err := openStore(filepath.Join(dir, "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	spans, err := store.Spans(ctx, o.RunID)
	if err != nil || len(spans) == 0 {
		t.Fatalf("the run's spans: %v %v", spans, err)
	}
	root := spans[0]
	if root.Kind != trace.KindInvokeWorkflow || root.Attributes["caller.protocol"] != "mcp" ||
		root.Attributes["caller.name"] != "agentry-test-client" || root.Attributes["traceparent"] != "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" {
		t.Errorf("root span = %s %v", root.Kind, root.Attributes)
	}
	called := false
	for _, sp := range spans {
		if sp.Kind == trace.KindExecuteTool && sp.Attributes[semconv.AttrToolName] == "todo.write" {
			called = true
			if sp.Status == trace.StatusOK || !strings.Contains(sp.Error, "expose") {
				t.Errorf("scribe's todo.write = %s %q, want refused by expose.permissions", sp.Status, sp.Error)
			}
		}
	}
	if !called {
		t.Error("scribe's todo.write call is not in the trace")
	}
	page, err := store.Runs(ctx, trace.RunFilter{})
	if err != nil || len(page.Runs) != 1 {
		t.Errorf("runs = %+v %v, want the one workflow run (a call with a bad input starts none)", page.Runs, err)
	}
}
