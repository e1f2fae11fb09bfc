package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/otlp"
	"github.com/agentry/agentry/trace/semconv"
	"github.com/agentry/agentry/web/clienttest"
)

// mcpClientScript is the TypeScript SDK client the MCP tests drive.
func mcpClientScript(t *testing.T) clienttest.Script {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "web", "mcp", "testdata", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	return clienttest.Write(t, "client.mjs", string(src), "@modelcontextprotocol/sdk")
}

// mcpProject is a folder with agents, a script for their model and an
// agentry.yaml that exposes fast, slow, failing and asker, not hidden.
func mcpProject(t *testing.T) (dir string) {
	dir = t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "fast.md", "---\nname: fast\ndescription: Answers at once\n---\nYou answer.\n")
	writeFile(t, agents, "slow.md", "---\nname: slow\ndescription: Takes its time\n---\nYou think.\n")
	writeFile(t, agents, "failing.md", "---\nname: failing\ndescription: Has nothing to say\n---\nYou fail.\n")
	writeFile(t, agents, "asker.md", "---\nname: asker\ndescription: Needs approval to write its todo list\ntools:\n  ask: [todo.write]\n---\nYou plan.\n")
	writeFile(t, agents, "hidden.md", "---\nname: hidden\ndescription: Not for outsiders\n---\nYou hide.\n")
	writeFile(t, dir, "scripts/s.yaml", `fast:
  - {latency: 300ms, say: "the answer is 42"}
slow:
  - {latency: 60s, say: "too late"}
failing: []
asker:
  - calls: [{tool: todo.write, args: {todos: [{content: "plan", status: pending}]}}]
  - say: "planned"
`)
	config := `agents: ` + agents + `
db: ` + filepath.Join(dir, "t.db") + `
workspace: ` + dir + `
models:
  default: script:s.yaml
serve:
  script_dir: ` + filepath.Join(dir, "scripts") + `
expose:
  agents: [fast, slow, failing, asker]
`
	writeFile(t, dir, "agentry.yaml", config)
	// `agentry mcp` takes script: models from anywhere, like `agentry run`;
	// serve only from serve.script_dir.
	// (in a folder of its own, for clients that start the server in a
	// folder without a way to pass it --config).
	writeFile(t, dir, "stdio/agentry.yaml", strings.Replace(config, "script:s.yaml", "script:"+filepath.Join(dir, "scripts", "s.yaml"), 1))
	return dir
}

// mcpSteps are what the client does in one session, over either transport.
const mcpSteps = `[
 {"do": "list"},
 {"do": "call", "tool": "fast", "args": {"task": "what is it?", "context": "a riddle"},
  "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
 {"do": "call", "tool": "failing", "args": {"task": "try"}},
 {"do": "cancel", "tool": "slow", "args": {"task": "think"}},
 {"do": "call", "tool": "asker", "args": {"task": "plan"}, "decide": "approve"}
]`

// mcpStep is one line the client printed.
type mcpStep struct {
	Step  string `json:"step"`
	Tool  string `json:"tool"`
	Tools []struct {
		Name, Description string
		OutputSchema      map[string]any `json:"outputSchema"`
	} `json:"tools"`
	Result struct {
		IsError bool `json:"isError"`
		Content []struct {
			Type, Text string
		} `json:"content"`
		Structured struct {
			Status     string `json:"status"`
			Agent      string `json:"agent"`
			Result     string `json:"result"`
			DurationMS *int64 `json:"duration_ms"`
			Error      string `json:"error"`
			RunID      string `json:"run_id"`
		} `json:"structuredContent"`
	} `json:"result"`
	Progress []string `json:"progress"`
	Elicited []string `json:"elicited"`
	Error    string   `json:"error"`
}

func parseSteps(t *testing.T, out string) map[string]mcpStep {
	t.Helper()
	steps := map[string]mcpStep{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var s mcpStep
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("client printed %q: %v", line, err)
		}
		steps[s.Step+" "+s.Tool] = s
	}
	return steps
}

// checkMCPSession checks what the client saw and what the store kept: the
// exposed agents listed and no other, a call's answer with its run ID, its
// progress lines, its caller and trace on the run's root span, a failed
// run as an error result, a cancelled call's run cancelled, and an ask
// answered through elicitation.
func checkMCPSession(t *testing.T, out, dbPath string) {
	t.Helper()
	steps := parseSteps(t, out)
	var names []string
	for _, tool := range steps["list "].Tools {
		names = append(names, tool.Name)
		if tool.OutputSchema == nil {
			t.Errorf("tool %s declares no outputSchema", tool.Name)
		}
	}
	if want := []string{"asker", "failing", "fast", "slow"}; !slices.Equal(names, want) {
		t.Errorf("tools listed = %v, want %v (hidden is not exposed)", names, want)
	}
	fast := steps["call fast"]
	sc := fast.Result.Structured
	if fast.Result.IsError || sc.Status != "ok" || sc.Agent != "fast" || sc.Result != "the answer is 42" || sc.RunID == "" || sc.DurationMS == nil {
		t.Errorf("fast's result = %+v", fast.Result)
	}
	if len(fast.Result.Content) != 1 || fast.Result.Content[0].Text != "the answer is 42" {
		t.Errorf("fast's text content = %+v, want the answer", fast.Result.Content)
	}
	// The TypeScript client handles a notification a microtask after it
	// reads it and a response at once, so a line sent just before the
	// result (the run's last) may reach it after the call is over; the
	// line sent while the run goes is what it must see.
	if !slices.ContainsFunc(fast.Progress, func(l string) bool { return strings.HasPrefix(l, "▶ fast started: what is it?") }) {
		t.Errorf("fast's progress = %q, want its start line", fast.Progress)
	}
	failing := steps["call failing"]
	if !failing.Result.IsError || failing.Result.Structured.Status != "error" || failing.Result.Structured.Error == "" ||
		failing.Result.Structured.RunID == "" {
		t.Errorf("failing's result = %+v, want isError with status error and why", failing.Result)
	}
	if c := steps["cancel slow"]; c.Error == "" || !slices.ContainsFunc(c.Progress, func(l string) bool { return strings.Contains(l, "slow started") }) {
		t.Errorf("cancel step = %+v", c)
	}
	asker := steps["call asker"]
	if asker.Result.IsError || asker.Result.Structured.Result != "planned" {
		t.Errorf("asker's result = %+v, want it planned once approved", asker.Result)
	}
	if len(asker.Elicited) != 1 || !strings.Contains(asker.Elicited[0], "asker wants to call todo.write") {
		t.Errorf("elicitations = %q, want one naming the call", asker.Elicited)
	}

	store, err := openStore(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	spans, err := store.Spans(ctx, sc.RunID)
	if err != nil || len(spans) == 0 {
		t.Fatalf("fast's run %s: %v", sc.RunID, err)
	}
	root := spans[0]
	for k, want := range map[string]any{"caller.protocol": "mcp", "caller.name": "agentry-test-client", "caller.version": "1.2.3",
		otlp.AttrTraceParent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
		semconv.AttrTask:     "what is it?\n\nContext:\na riddle"} {
		if root.Attributes[k] != want {
			t.Errorf("root span %s = %v, want %v", k, root.Attributes[k], want)
		}
	}
	page, err := store.Runs(ctx, trace.RunFilter{Agent: "slow"})
	if err != nil || len(page.Runs) != 1 {
		t.Fatalf("slow's runs: %+v %v", page, err)
	}
	if st := page.Runs[0].Status; st != trace.StatusCancelled {
		t.Errorf("the cancelled call's run ended %s, want cancelled", st)
	}
	approvals, err := store.(approval.Store).Approvals(ctx, approval.Filter{RunID: asker.Result.Structured.RunID})
	if err != nil || len(approvals) != 1 || approvals[0].Status != approval.Approved || approvals[0].DecidedBy != "mcp:agentry-test-client" {
		t.Errorf("asker's approvals = %+v %v, want one approved by the MCP client", approvals, err)
	}
}

func TestTheTypeScriptSDKClientUsesAgentryMCPOverStdio(t *testing.T) {
	dir := mcpProject(t)
	bin := buildTraceTestBinary(t)
	script := mcpClientScript(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, errOut, err := script.Run(ctx, []string{"MCP_COMMAND=" + bin, `MCP_ARGS=["mcp"]`, "MCP_CWD=" + filepath.Join(dir, "stdio"), "MCP_ELICIT=1"}, mcpSteps)
	if err != nil {
		t.Fatalf("client: %v\nstderr:\n%s\nstdout:\n%s", err, errOut, out)
	}
	checkMCPSession(t, out, filepath.Join(dir, "t.db"))
}

func TestTheTypeScriptSDKClientUsesServesMCPOverStreamableHTTP(t *testing.T) {
	dir := mcpProject(t)
	script := mcpClientScript(t)
	const token = "mcp-t0ken-mcp-t0ken"
	base := startServe(t, dir, token)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Without the token the transport is refused like any page.
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("POST /mcp without the token: %v %v, want 401", resp, err)
	}
	out, errOut, err := script.Run(ctx, []string{"MCP_TRANSPORT=http", "MCP_URL=" + base + "mcp", "MCP_TOKEN=" + token, "MCP_ELICIT=1"}, mcpSteps)
	if err != nil {
		t.Fatalf("client: %v\nstderr:\n%s\nstdout:\n%s", err, errOut, out)
	}
	checkMCPSession(t, out, filepath.Join(dir, "t.db"))
}

// startServe runs `agentry serve` on dir's agentry.yaml with token, on a
// free port, until the test ends, and returns its base URL ("http://…/").
func startServe(t *testing.T, dir, token string) string {
	t.Helper()
	var out, errOut lockedBuffer
	s := &session{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" },
		env: func() []string { return []string{"AGENTRY_TOKEN=" + token} }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- s.main(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--config", filepath.Join(dir, "agentry.yaml")})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("serve did not stop")
		}
	})
	url := waitURL(t, &out, done)
	return strings.TrimSuffix(url, "?token="+token)
}

func TestTheMCPInspectorCLIListsAndCallsTheExposedAgents(t *testing.T) {
	dir := mcpProject(t)
	bin := buildTraceTestBinary(t)
	inspector := clienttest.Bin(t, "@modelcontextprotocol/inspector", "clients/launcher/build/index.js")
	const token = "insp-t0ken-insp-t0ken"
	base := startServe(t, dir, token)
	for _, target := range []struct {
		name string
		args []string
	}{
		{"stdio", []string{bin, "mcp", "--cwd", filepath.Join(dir, "stdio")}},
		{"Streamable HTTP", []string{base + "mcp", "--transport", "http", "--header", "Authorization: Bearer " + token}},
	} {
		t.Run(target.name, func(t *testing.T) {
			inspect := func(args ...string) string {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, "node", append(append([]string{inspector, "--cli"}, target.args...), args...)...)
				cmd.Dir = dir
				out, err := cmd.Output()
				if err != nil {
					var stderr []byte
					if ee, ok := err.(*exec.ExitError); ok {
						stderr = ee.Stderr
					}
					t.Fatalf("inspector %v: %v\n%s\n%s", args, err, out, stderr)
				}
				return string(out)
			}
			// --strict fails on tool schemas that are not portable across clients.
			var list struct{ Tools []struct{ Name string } }
			if err := json.Unmarshal([]byte(inspect("--method", "tools/list", "--strict")), &list); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
			}
			if want := []string{"asker", "failing", "fast", "slow"}; !slices.Equal(names, want) {
				t.Errorf("tools = %v, want %v", names, want)
			}
			var res struct {
				StructuredContent struct{ Status, Result, RunID string } `json:"structuredContent"`
			}
			if err := json.Unmarshal([]byte(inspect("--method", "tools/call", "--tool-name", "fast", "--tool-arg", "task=hello")), &res); err != nil {
				t.Fatal(err)
			}
			if sc := res.StructuredContent; sc.Status != "ok" || sc.Result != "the answer is 42" {
				t.Errorf("fast answered %+v", sc)
			}
		})
	}
}
