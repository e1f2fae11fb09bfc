package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentry/agentry/delegation/tool/mcp"
)

// The test binary doubles as an MCP server (Go SDK, stdio) when
// MCPTEST_SERVE names a mode, so the adapter is exercised against a real
// process for what the npm reference server cannot show: paging, dotted tool
// names, mixed content, crashes and hangs.
const serveEnv = "MCPTEST_SERVE"

func TestMain(m *testing.M) {
	if mode := os.Getenv(serveEnv); mode != "" {
		os.Exit(serveForTest(mode))
	}
	os.Exit(m.Run())
}

// selfServer is a Server that runs this test binary in mode.
func selfServer(t *testing.T, name, mode string, env map[string]string) mcp.Server {
	t.Helper()
	exe, err := testExecutable()
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]string{serveEnv: mode}
	for k, v := range env {
		all[k] = v
	}
	return mcp.Server{Name: name, Command: exe, Env: all}
}

// testExecutable is this test binary, which serves MCP in a child process.
func testExecutable() (string, error) { return os.Executable() }

func serveForTest(mode string) int {
	if f := os.Getenv("MCPTEST_PIDFILE"); f != "" {
		os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
	switch mode {
	case "crash":
		fmt.Fprintln(os.Stderr, "boom: this server cannot start")
		return 3
	case "hang": // never answers; leaves when stdin closes
		io.Copy(io.Discard, os.Stdin)
		return 0
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "paged", Version: "1"}, &sdk.ServerOptions{PageSize: 2})
	object := json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}}}`)
	text := func(s string) []sdk.Content { return []sdk.Content{&sdk.TextContent{Text: s}} }
	for i := range 5 {
		name := fmt.Sprintf("tool-%d", i)
		srv.AddTool(&sdk.Tool{Name: name, Description: "Tool number " + strconv.Itoa(i), InputSchema: object},
			func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: text(name + " got " + string(req.Params.Arguments))}, nil
			})
	}
	srv.AddTool(&sdk.Tool{Name: "has.dot", InputSchema: object}, nil)
	srv.AddTool(&sdk.Tool{Name: "fail", Title: "Always fails", InputSchema: object},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: text("disk is full")}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "mixed", InputSchema: object},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "first"},
				&sdk.ImageContent{Data: []byte("PNGDATA"), MIMEType: "image/png"},
				&sdk.ResourceLink{Name: "readme", URI: "file:///readme.md"},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "mem://note", Text: "note text"}},
				&sdk.TextContent{Text: "last"},
			}}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "structured", InputSchema: object},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]int{"answer": 42}}, nil
		})
	if err := srv.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
