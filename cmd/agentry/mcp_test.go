package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/tool/mcp/mcptest"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
	"github.com/agentry/agentry/trace/sqlite"
)

// mcpConfig is an agentry.yaml that configures the npm reference server as
// the tool group "everything".
func mcpConfig(t *testing.T) string {
	t.Helper()
	srv := mcptest.Everything(t, "everything")
	return fmt.Sprintf("mcp:\n  servers:\n    everything:\n      command: %s\n      args: [%q]\n      env: {EXTRA: yes}\n", srv.Command, srv.Args[0])
}

func TestValidateKnowsTheToolsOfConfiguredMCPServers(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeFile(t, dir, "agents/echoer.md", "---\nname: echoer\ndescription: Echoes\ntools: [everything.echo, everything]\n---\nEcho.\n")
	check := func(config string) string {
		writeFile(t, dir, "agentry.yaml", config)
		s, out, errOut := testSession()
		if code := s.main(context.Background(), []string{"validate", "--agents", "agents", "--json"}); code != 0 {
			t.Fatalf("exit %d: %s %s", code, out, errOut)
		}
		return out.String()
	}
	if out := check(""); !strings.Contains(out, `tool \"everything.echo\" matches no known tool`) {
		t.Errorf("without the server configured, validate should warn: %s", out)
	}
	if out := check("mcp:\n  servers:\n    everything: {command: node}\n"); strings.Contains(out, "everything") {
		t.Errorf("with the server configured, validate still warns: %s", out)
	}
}

func TestRunCallsAnMCPToolAndTracesIt(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeFile(t, dir, "agentry.yaml", mcpConfig(t))
	writeFile(t, dir, "agents/echoer.md", "---\nname: echoer\ndescription: Echoes\ntools: [everything.echo]\n---\nEcho.\n")
	sc := writeFile(t, dir, "script.yaml", "echoer:\n  - calls: [{tool: everything.echo, args: {message: hi from run}}]\n  - say: echoed\n")
	db := filepath.Join(dir, "trace.db")
	s, out, errOut := testSession()
	if code := s.main(context.Background(), []string{"run", "echoer", "echo", "--db", db, "--model", "script:" + sc, "--json"}); code != 0 {
		t.Fatalf("exit %d; stdout %s stderr %s", code, out, errOut)
	}
	var res struct {
		RunID  string `json:"run_id"`
		Status string `json:"status"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Status != "ok" {
		t.Fatalf("result %s: %v", out, err)
	}
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	spans, err := store.Spans(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range spans {
		if sp.Name == "execute_tool everything.echo" {
			if sp.Status != trace.StatusOK || sp.Attributes[semconv.AttrToolResult] != "Echo: hi from run" {
				t.Errorf("echo span = %s %v", sp.Status, sp.Attributes)
			}
			return
		}
	}
	t.Errorf("no everything.echo span among %d spans", len(spans))
}

func TestRunFailsClearlyWhenAnMCPServerCannotStart(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeFile(t, dir, "agentry.yaml", "mcp:\n  servers:\n    ghost: {command: agentry-no-such-mcp-server}\n")
	writeFile(t, dir, "agents/a.md", "---\nname: a\ndescription: A\n---\nA.\n")
	s, out, errOut := testSession()
	if code := s.main(context.Background(), []string{"run", "a", "task", "--db", filepath.Join(dir, "t.db")}); code == 0 {
		t.Fatalf("exit 0; stdout %s", out)
	}
	if msg := errOut.String(); !strings.Contains(msg, `mcp server "ghost"`) || !strings.Contains(msg, "agentry-no-such-mcp-server") {
		t.Errorf("stderr = %q, want the server and its command named", msg)
	}
}
