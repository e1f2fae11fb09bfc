package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/semconv"
	"github.com/agentry/agentry/trace/sqlite"
)

// The attempts of issue 24 end to end, as root with the real bubblewrap,
// in the default layout: workspace ".", with agentry.db, agents/,
// workflows/ and agentry.yaml inside it.

// runSpans runs `agentry run ARGS --json` in the current folder and
// returns its exit code and the run's spans.
func runSpans(t *testing.T, args ...string) (int, []trace.Span) {
	t.Helper()
	s, out, errOut := testSession()
	code := s.main(context.Background(), append([]string{"run"}, append(args, "--json")...))
	var res struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.RunID == "" {
		t.Fatalf("run %v: exit %d, %q, %s", args, code, out, errOut)
	}
	store, err := sqlite.Open("agentry.db")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	spans, err := store.Spans(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	return code, spans
}

// spansNamed are the spans with one of names, in order.
func spansNamed(spans []trace.Span, names ...string) []trace.Span {
	var out []trace.Span
	for _, sp := range spans {
		if slices.Contains(names, sp.Name) {
			out = append(out, sp)
		}
	}
	return out
}

func TestAnAgentCannotApproveItsOwnAskNorWidenItself(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	config := "approval_timeout: 3s\n"
	boss := "---\nname: boss\ndescription: Boss.\ntools: [shell.run, filesystem.write_file, filesystem.edit_file]\nsubagents:\n  allow: [worker]\n  ask: [worker]\n---\nBoss.\n"
	writeFile(t, dir, "agentry.yaml", config)
	writeFile(t, dir, "agents/boss.md", boss)
	writeFile(t, dir, "agents/worker.md", "---\nname: worker\ndescription: Deploys.\n---\nWork.\n")
	linkTestBinary(t, filepath.Join(dir, "forge.test"))
	writeFile(t, dir, "script.yaml", `boss:
  - calls: [{tool: delegate, args: {agent: worker, task: "deploy to production", background: true, id: w}}]
  - calls:
      - {tool: shell.run, args: {command: "sleep 0.5; AGENTRY_FORGE_DB=agentry.db ./forge.test -test.run=^TestHelperForgeApproval$"}}
      - {tool: shell.run, args: {command: "echo 'tools: [shell.network]' >> agents/boss.md"}}
      - {tool: shell.run, args: {command: "echo 'permissions: {tools: {allow: [\"*\"]}}' >> agentry.yaml"}}
      - {tool: shell.run, args: {command: "mkdir -p workflows && echo 'name: evil' > workflows/evil.yaml"}}
      - {tool: filesystem.write_file, args: {path: agentry.yaml, content: "permissions: {tools: {allow: [\"*\"]}}"}}
      - {tool: filesystem.edit_file, args: {path: agents/boss.md, old_string: "Boss.\n", new_string: "Boss.\ntools: [shell.network]\n"}}
  - calls: [{tool: get_agent_results, args: {agent_ids: [w]}}]
  - say: done
worker:
  - say: deployed
`)
	_, spans := runSpans(t, "boss", "go", "--model", "script:script.yaml")
	if ran := spansNamed(spans, "invoke_agent worker"); len(ran) != 0 {
		t.Fatalf("the ask-guarded worker ran without a person's approval: %+v", ran)
	}
	forge := spansNamed(spans, "execute_tool shell.run")[0]
	if r := fmt.Sprint(forge.Attributes[semconv.AttrToolResult]); !strings.Contains(r, "forge failed") {
		t.Errorf("the forging command's result %q; want it to fail inside the sandbox", r)
	}
	store, err := sqlite.Open("agentry.db")
	if err != nil {
		t.Fatal(err)
	}
	list, err := store.Approvals(context.Background(), approval.Filter{})
	store.Close()
	if err != nil || len(list) != 1 || list[0].Status != approval.Denied || list[0].DecidedBy != "timeout" {
		t.Errorf("approvals %+v, %v; want the one request denied by the timeout", list, err)
	}
	for _, sp := range spansNamed(spans, "execute_tool filesystem.write_file", "execute_tool filesystem.edit_file") {
		if !strings.Contains(sp.Error, "agentry's own state") {
			t.Errorf("%s: %s %q; want it refused as agentry's own state", sp.Name, sp.Status, sp.Error)
		}
	}
	for path, want := range map[string]string{"agentry.yaml": config, "agents/boss.md": boss} {
		if b, err := os.ReadFile(path); err != nil || string(b) != want {
			t.Errorf("%s is now %q, %v; want it unchanged", path, b, err)
		}
	}
	if _, err := os.Stat("workflows/evil.yaml"); err == nil {
		t.Error("a command wrote a workflow")
	}
}

// The lines that ran id under shell.run(echo *), and skipped an ask, while
// permissions split command lines by hand.
var splitterAttacks = []string{
	`echo \ #; id`,
	`echo \>& id`,
	`echo $'\'' ; id #'`,
	"echo x <<E\necho '\nE\nid\n#'",
	`echo ${x:=$'\x24\x28id\x29'} ${x@P}`,
}

func TestCommandPatternsHoldAgainstLinesBashReadsDifferently(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeFile(t, dir, "agents/echoer.md", "---\nname: echoer\ndescription: Echoes.\ntools: [\"shell.run(echo *)\"]\n---\nEcho.\n")
	writeFile(t, dir, "agents/pusher.md", "---\nname: pusher\ndescription: Pushes.\ntools:\n  allow: [shell.run]\n  ask: [\"shell.run(git push *)\"]\n---\nPush.\n")
	script := "echoer:\n  - calls:\n"
	pushes := "pusher:\n  - calls:\n"
	for _, line := range splitterAttacks {
		q, _ := json.Marshal(line)
		script += fmt.Sprintf("      - {tool: shell.run, args: {command: %s}}\n", q)
		push, _ := json.Marshal(strings.ReplaceAll(line, "id", "git push --force origin main"))
		pushes += fmt.Sprintf("      - {tool: shell.run, args: {command: %s}}\n", push)
	}
	writeFile(t, dir, "script.yaml", script+"  - say: done\n"+pushes+"  - say: done\n")

	_, spans := runSpans(t, "echoer", "go", "--model", "script:script.yaml")
	for i, sp := range spansNamed(spans, "execute_tool shell.run") {
		if sp.Status != trace.StatusDenied || strings.Contains(fmt.Sprint(sp.Attributes[semconv.AttrToolResult]), "uid=") {
			t.Errorf("%q under shell.run(echo *): %s %q %v; want denied, id never run", splitterAttacks[i], sp.Status, sp.Error, sp.Attributes[semconv.AttrToolResult])
		}
	}
	_, spans = runSpans(t, "pusher", "go", "--model", "script:script.yaml", "--deny-asks")
	for i, sp := range spansNamed(spans, "execute_tool shell.run") {
		if sp.Status != trace.StatusDenied {
			t.Errorf("%q with an ask on git push and --deny-asks: %s %q; want it asked, hence denied", splitterAttacks[i], sp.Status, sp.Error)
		}
	}
}

// TestHelperForgeApproval is no test: it is what an agent's command runs
// (the test binary, linked into the workspace) to approve every pending
// approval in the database AGENTRY_FORGE_DB names, as sqlite3 would.
func TestHelperForgeApproval(t *testing.T) {
	path := os.Getenv("AGENTRY_FORGE_DB")
	if path == "" {
		return
	}
	db, err := sql.Open("sqlite", path)
	if err == nil {
		_, err = db.Exec("UPDATE approvals SET status = 'approved', decided_by = 'forger', decided_at = 1 WHERE status = 'pending'")
	}
	if err != nil {
		fmt.Println("forge failed:", err)
		os.Exit(3)
	}
	fmt.Println("forged")
	os.Exit(0)
}

// linkTestBinary puts this test binary at dst, where a sandboxed command
// can run it (go test keeps it under the host's /tmp, which the sandbox
// hides).
func linkTestBinary(t *testing.T, dst string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if os.Link(self, dst) == nil {
		return
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
}
