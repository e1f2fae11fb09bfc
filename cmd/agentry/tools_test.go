package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentry/agentry/cmd/agentry/config"
	"github.com/agentry/agentry/delegation/tool/filesystem"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
	"github.com/agentry/agentry/trace/sqlite"
)

func TestPermissionsListsEveryBuiltinToolAndWhyOneCannotRun(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "coder.md", "---\nname: coder\ndescription: Codes.\ntools: [shell.run, web.search, todo.write]\n---\nCode.\n")
	s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
	if code := s.main(context.Background(), []string{"permissions", "coder", "--agents", dir, "--json"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got permissionsJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	reasons := map[string]string{}
	for _, d := range got.Tools {
		if d.Allowed {
			reasons[d.Tool] = d.Reason
		}
	}
	if len(reasons) != 3 {
		t.Fatalf("allowed tools %v; want shell.run, web.search and todo.write listed and allowed", reasons)
	}
	for _, d := range got.Tools {
		if d.Tool == "shell.network" && (d.Allowed || !strings.Contains(d.Reason, "names shell.network exactly")) {
			t.Errorf("shell.network: %+v; want it listed, denied here, with how it is granted", d)
		}
	}
	if !strings.Contains(reasons["web.search"], "UNAVAILABLE here: no search backend configured") {
		t.Errorf("web.search reason %q; want it marked unavailable with the reason", reasons["web.search"])
	}
	if strings.Contains(reasons["shell.run"], "UNAVAILABLE") || strings.Contains(reasons["todo.write"], "UNAVAILABLE") {
		t.Errorf("shell.run and todo.write can run here: %v", reasons)
	}

	s, out, _ = testSession("AGENTRY_WORKSPACE="+dir, "AGENTRY_SHELL__SANDBOX=none", "AGENTRY_WEB_SEARCH__BACKEND=brave")
	s.main(context.Background(), []string{"permissions", "coder", "--agents", dir})
	if !strings.Contains(out.String(), "web_search.api_key is required") {
		t.Errorf("text output should name what web.search lacks:\n%s", out)
	}
}

func TestShellRunFromTheCLIHonoursCommandPatterns(t *testing.T) {
	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "coder.md", "---\nname: coder\ndescription: Codes.\ntools: [\"shell.run(echo *)\", todo.write]\n---\nCode.\n")
	sc := writeFile(t, dir, "script.yaml", `coder:
  - calls:
      - {tool: shell.run, args: {command: "echo hi > made.txt && echo done"}}
      - {tool: shell.run, args: {command: "echo hi; rm made.txt"}}
      - {tool: todo.write, args: {todos: [{content: "Say hi", status: completed}]}}
  - say: finished
`)
	db := filepath.Join(dir, "trace.db")
	s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
	if code := s.main(context.Background(), []string{"run", "coder", "go", "--agents", agents, "--db", db, "--model", "script:" + sc, "--json"}); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	var res struct {
		RunID string `json:"run_id"`
	}
	json.Unmarshal(out.Bytes(), &res)
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	spans, err := store.Spans(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var shell []trace.Span
	var todos any
	for _, sp := range spans {
		switch sp.Name {
		case "execute_tool shell.run":
			shell = append(shell, sp)
		case "execute_tool todo.write":
			todos = sp.Attributes["todos"]
		}
	}
	if len(shell) != 2 || shell[0].Status != trace.StatusOK || shell[1].Status != trace.StatusDenied {
		t.Fatalf("shell spans %+v; want one ok, one denied", shell)
	}
	if r, _ := shell[0].Attributes[semconv.AttrToolResult].(string); !strings.Contains(r, `"stdout":"done\n"`) {
		t.Errorf("first call's result %q", r)
	}
	if !strings.Contains(shell[1].Error, `"rm made.txt" matches none of its allow patterns`) {
		t.Errorf("denial %q should name the command that did not match", shell[1].Error)
	}
	if b, _ := json.Marshal(todos); string(b) != `[{"content":"Say hi","status":"completed"}]` {
		t.Errorf("todos attribute = %s", b)
	}
}

func TestTheBuiltinToolsAreTheOnesTheRegistryKnows(t *testing.T) {
	ws, err := filesystem.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range builtinTools(config.Default(), ws) {
		got = append(got, a.Name) // available here or not: a file may grant it
	}
	slices.Sort(got)
	if !slices.Equal(got, registry.BuiltinTools) {
		t.Fatalf("built-in tools %v, registry knows %v", got, registry.BuiltinTools)
	}
}
