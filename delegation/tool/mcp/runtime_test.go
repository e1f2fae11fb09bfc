package mcp_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/delegation/tool/mcp"
	"github.com/agentry/agentry/delegation/tool/mcp/mcptest"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
	"github.com/agentry/agentry/trace/semconv"
)

// TestAgentCallsAnMCPToolThroughTheRuntime runs a real agent loop (script
// model) whose agent may use only everything.echo: the echo result reaches
// the trace and the model, and a call outside its permissions is denied.
func TestAgentCallsAnMCPToolThroughTheRuntime(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	set, err := mcp.ConnectAll(ctx, []mcp.Server{mcptest.Everything(t, "everything")})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()

	agent := "---\nname: echoer\ndescription: Echoes through MCP\ntools: [everything.echo]\n---\nYou echo.\n"
	snap, err := registry.Load(fstest.MapFS{"echoer.md": {Data: []byte(agent)}},
		registry.Options{KnownTools: append(registry.BuiltinTools, "everything.echo")})
	if err != nil {
		t.Fatal(err)
	}
	if probs := snap.Problems(); len(probs) != 0 {
		t.Fatalf("agent problems: %v", probs)
	}
	sm, err := script.Parse([]byte(`
echoer:
  - calls:
      - {tool: everything.echo, args: {message: "ping via mcp"}}
      - {tool: everything.get-sum, args: {a: 1, b: 2}}
  - say: "done"
`))
	if err != nil {
		t.Fatal(err)
	}
	store := memory.New()
	rec := trace.NewRecorder(store, trace.RecorderConfig{})
	rt, err := delegation.New(delegation.Config{
		Agents:       registry.New(snap),
		Models:       model.Providers{"script": func(string) (model.LLM, error) { return sm, nil }},
		DefaultModel: "script",
		Sink:         rec,
		Tools:        set.Tools(),
		GlobalTools:  permissions.Rules{Allow: []string{"*"}},
		Logger:       slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := rt.Run(ctx, delegation.Request{Agent: "echoer", Task: "echo something"})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if res.Status != trace.StatusOK || res.Result != "done" {
		t.Fatalf("run = %+v", res)
	}
	spans, err := store.Spans(ctx, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]trace.Span{}
	for _, sp := range spans {
		if sp.Kind == trace.KindExecuteTool {
			tools[fmt.Sprint(sp.Attributes[semconv.AttrToolName])] = sp
		}
	}
	echo, ok := tools["everything.echo"]
	if !ok {
		t.Fatalf("no execute_tool span for everything.echo among %v", spans)
	}
	if echo.Status != trace.StatusOK || fmt.Sprint(echo.Attributes[semconv.AttrToolResult]) != "Echo: ping via mcp" {
		t.Errorf("echo span: status %s, result %q", echo.Status, echo.Attributes[semconv.AttrToolResult])
	}
	sum, ok := tools["everything.get-sum"]
	if !ok || sum.Status != trace.StatusDenied || !strings.Contains(sum.Error, "not allowed") {
		t.Errorf("get-sum span: %+v, want denied by the agent's tool list", sum)
	}
}
