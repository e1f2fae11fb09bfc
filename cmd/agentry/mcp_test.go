package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

func TestConfigReadsMCPServers(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeFile(t, dir, "agentry.yaml", "mcp:\n  start_timeout: 5s\n  servers:\n    files:\n      command: npx\n      args: [-y, server-filesystem, /tmp]\n      env: {DEBUG: \"1\"}\n")
	cfg, err := loadWith(t, []string{"AGENTRY_MCP__START_TIMEOUT=7s"})
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.mcpServers()
	if len(got) != 1 || got[0].Name != "files" || got[0].Command != "npx" || len(got[0].Args) != 3 || got[0].Env["DEBUG"] != "1" {
		t.Errorf("servers = %+v", got)
	}
	if cfg.MCP.StartTimeout != 7*time.Second {
		t.Errorf("start_timeout = %s, want the environment's 7s", cfg.MCP.StartTimeout)
	}
}

func TestConfigRejectsMCPServersItCannotUse(t *testing.T) {
	tests := []struct {
		name, file string
		env        []string
		want       string
	}{
		{"an unknown key in a server", "mcp:\n  servers:\n    x:\n      command: a\n      argz: [b]\n", nil, "argz"},
		{"an unknown key in the section", "mcp:\n  server: {}\n", nil, "server"},
		{"a name that cannot be a tool group", "mcp:\n  servers:\n    My.Server:\n      command: a\n", nil, `"My.Server"`},
		{"a name taken by a built-in group", "mcp:\n  servers:\n    web:\n      command: a\n", nil, `"web" is a built-in tool group`},
		{"a server without a command", "mcp:\n  servers:\n    x: {args: [a]}\n", nil, "command is empty"},
		{"a server set from the environment", "", []string{"AGENTRY_MCP__SERVERS__X=cmd"}, "only the config file"},
		{"a negative start timeout", "mcp: {start_timeout: -1s}\n", nil, "start_timeout"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			writeFile(t, dir, "agentry.yaml", tc.file)
			_, err := loadWith(t, tc.env)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
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
	if code := runCommand(context.Background(), s, []string{"echoer", "echo", "--db", db, "--model", "script:" + sc, "--json"}); code != 0 {
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
	if code := runCommand(context.Background(), s, []string{"a", "task", "--db", filepath.Join(dir, "t.db")}); code == 0 {
		t.Fatalf("exit 0; stdout %s", out)
	}
	if msg := errOut.String(); !strings.Contains(msg, `mcp server "ghost"`) || !strings.Contains(msg, "agentry-no-such-mcp-server") {
		t.Errorf("stderr = %q, want the server and its command named", msg)
	}
}
