package collectortest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An eval's case runs are exported live and join the caller's trace, as
// `agentry run`'s are.
func TestCLIAnEvalsRunsAreExportedLiveInTheCallersTrace(t *testing.T) {
	c := startCollector(t)
	f := newFixture(t)
	evals := filepath.Join(f.dir, "evals")
	must(t, os.MkdirAll(evals, 0o755))
	must(t, os.WriteFile(filepath.Join(evals, "apples.yaml"), []byte("agent: coord\nmodel: script:"+f.script+
		"\ncases:\n  - name: counts\n    task: count the apples\n    expect: {output_contains: all done}\n"), 0o644))
	const caller = "00-5bf92f3577b34da6a3ce929d0e0e4736-10f067aa0ba902b7-01"
	out, errOut, code := f.run(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + c.httpURL, "TRACEPARENT=" + caller, "AGENTRY_WORKSPACE=" + f.dir},
		"eval", "apples", "--agents", f.agents, "--evals", evals, "--db", f.db, "--json")
	if code != 0 {
		t.Fatalf("agentry eval exited %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	var res struct {
		Cases []struct {
			RunID string `json:"run_id"`
		}
	}
	must(t, json.Unmarshal([]byte(out), &res))
	if len(res.Cases) != 1 {
		t.Fatalf("eval printed %s", out)
	}
	d := f.export(t, res.Cases[0].RunID)
	checkSameTree(t, d, c.spans(t, len(d.Spans)), "5bf92f3577b34da6a3ce929d0e0e4736", "10f067aa0ba902b7")
}

// A run an MCP client starts through `agentry mcp` is exported live, in
// the trace of the traceparent the call carries, as a CLI run is.
func TestMCPServersRunsAreExportedLiveInTheCallersTrace(t *testing.T) {
	c := startCollector(t)
	f := newFixture(t)
	must(t, os.WriteFile(filepath.Join(f.dir, "agentry.yaml"), []byte(fmt.Sprintf(
		"agents: %s\ndb: %s\nworkspace: %s\nmodels:\n  default: script:%s\nexpose:\n  agents: [coord]\n", f.agents, f.db, f.dir, f.script)), 0o644))
	cmd := exec.Command(agentry(t), "mcp")
	cmd.Dir = f.dir
	cmd.Env = append(cleanEnv(), "OTEL_EXPORTER_OTLP_ENDPOINT="+c.httpURL)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	must(t, err)
	outPipe, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// The MCP stdio transport: one JSON-RPC message a line.
	const caller = "00-6bf92f3577b34da6a3ce929d0e0e4736-20f067aa0ba902b7-01"
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"otlp-test","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"coord","arguments":{"task":"count the apples"},"_meta":{"traceparent":"` + caller + `"}}}`,
	} {
		_, err := fmt.Fprintln(in, msg)
		must(t, err)
	}
	answers := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(outPipe)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), `{"jsonrpc":"2.0","id":2,`) {
				answers <- sc.Text()
			}
		}
	}()
	var answer string
	select {
	case answer = <-answers:
	case <-time.After(time.Minute):
		t.Fatalf("no answer to the call\nstderr: %s", stderr.String())
	}
	var res struct {
		Result struct {
			Structured struct {
				Status string
				RunID  string `json:"run_id"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	must(t, json.Unmarshal([]byte(answer), &res))
	if res.Result.Structured.Status != "ok" {
		t.Fatalf("the call answered %s", answer)
	}
	in.Close() // the client goes away: mcp ends, sending its last spans
	if err := cmd.Wait(); err != nil {
		t.Fatalf("agentry mcp: %v\nstderr: %s", err, stderr.String())
	}
	d := f.export(t, res.Result.Structured.RunID)
	checkSameTree(t, d, c.spans(t, len(d.Spans)), "6bf92f3577b34da6a3ce929d0e0e4736", "20f067aa0ba902b7")
}
