package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/sqlite"
)

// The cases of issue 29's "Defaults that stop ordinary work": with the
// binary's defaults and no limits configured, ordinary agents are not
// stopped by seed 001's orchestrator limits; an orchestrator still is.

// runAgentJSON runs `agentry run ROOT go --json` with the script sc over
// the agents (name → file) in a fresh folder and no agentry.yaml, and
// returns the decoded result and the trace database.
func runAgentJSON(t *testing.T, root string, agents map[string]string, sc string, env ...string) (map[string]any, string) {
	t.Helper()
	dir := t.TempDir()
	adir := filepath.Join(dir, "agents")
	for name, text := range agents {
		writeFile(t, adir, name+".md", text)
	}
	writeFile(t, dir, "notes.txt", "Q4 revenue grew 12%.\n")
	scPath := writeFile(t, dir, "script.yaml", sc)
	db := filepath.Join(dir, "trace.db")
	t.Chdir(dir) // no agentry.yaml but the test's
	s, out, errOut := testSession(append([]string{"AGENTRY_WORKSPACE=" + dir}, env...)...)
	s.main(context.Background(), []string{"run", root, "go", "--agents", adir, "--db", db, "--model", "script:" + scPath, "--json"})
	var res map[string]any
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("stdout %q is no result (stderr %s)", out, errOut)
	}
	return res, db
}

func turns(n int, call string) string {
	var b strings.Builder
	for range n {
		b.WriteString("  - calls: [" + call + "]\n")
	}
	return b.String()
}

func TestAClaudeCodeStyleAgentMakes60ReadAndGrepCallsWithTheDefaults(t *testing.T) {
	coder := "---\nname: coder\ndescription: Reads code\ntools: Read, Grep\nmax_turns: 40\n---\nYou read code.\n"
	sc := "coder:\n" + turns(30, "{tool: filesystem.read_file, args: {path: notes.txt}}, {tool: filesystem.grep, args: {pattern: revenue}}") +
		"  - say: read it all\n"
	res, _ := runAgentJSON(t, "coder", map[string]string{"coder": coder}, sc)
	if res["status"] != "ok" || res["result"] != "read it all" {
		t.Fatalf("result = %v, want ok after 60 Read/Grep calls", res)
	}
}

func TestAParentDelegating200TimesInARowEndsOk(t *testing.T) {
	parent := "---\nname: parent\ndescription: Delegates\nmax_turns: 250\nsubagents:\n  allow: [leaf]\n---\nYou delegate.\n"
	leaf := "---\nname: leaf\ndescription: Answers\n---\nYou answer.\n"
	sc := "parent:\n" + turns(200, "{tool: delegate, args: {agent: leaf, task: one more}}") + "  - say: all delegated\nleaf:\n  - say: done\n"
	for _, c := range []struct {
		name string
		env  []string
		ok   int // delegations that ran
	}{
		{"with the defaults: max_agents_per_run 100 refuses the rest, as in round one", nil, 99},
		{"with max_agents_per_run raised", []string{"AGENTRY_DELEGATION__MAX_AGENTS_PER_RUN=1000"}, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, db := runAgentJSON(t, "parent", map[string]string{"parent": parent, "leaf": leaf}, sc, c.env...)
			if res["status"] != "ok" || res["result"] != "all delegated" {
				t.Fatalf("result = %v, want ok", res)
			}
			if got := delegationsOK(t, db, res["run_id"].(string)); got != c.ok {
				t.Errorf("%d delegations ended ok, want %d", got, c.ok)
			}
		})
	}
}

// delegationsOK counts the run's delegations that ended ok.
func delegationsOK(t *testing.T, db, runID string) int {
	t.Helper()
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	spans, err := store.Spans(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sp := range spans {
		if sp.Name == "execute_tool delegate" && sp.Status == trace.StatusOK {
			n++
		}
	}
	return n
}

// An orchestrator conversation still gets seed 001's limits: the window of
// 50 tool calls stops one that makes 60, and the output says which limit
// and how to raise it.
func TestAnOrchestratorStillGetsSeed001sLimitsAndTheOutputSaysWhich(t *testing.T) {
	orch := "---\nname: orch\ndescription: Orchestrates\ntools: Read\nsubagents: {dispatch: true}\n---\nYou plan.\n"
	sc := "orch:\n" + turns(3, strings.Repeat("{tool: filesystem.read_file, args: {path: notes.txt}}, ", 19)+"{tool: filesystem.read_file, args: {path: notes.txt}}") +
		"  - say: never\n"
	res, _ := runAgentJSON(t, "orch", map[string]string{"orch": orch}, sc)
	limit, _ := res["limit"].(map[string]any)
	if res["status"] != "limit" || limit["setting"] != "limits.window_calls" || !strings.Contains(fmt.Sprint(limit["raise"]), "AGENTRY_LIMITS__WINDOW_CALLS") {
		t.Fatalf("result = %v, want limit by limits.window_calls with how to raise it", res)
	}
	dir := t.TempDir()
	adir := filepath.Join(dir, "agents")
	writeFile(t, adir, "orch.md", orch)
	scPath := writeFile(t, dir, "script.yaml", sc)
	t.Chdir(dir)
	s, out, _ := testSession("AGENTRY_WORKSPACE=" + dir)
	writeFile(t, dir, "notes.txt", "x\n")
	if code := s.main(context.Background(), []string{"run", "orch", "go", "--agents", adir, "--db", filepath.Join(dir, "t.db"), "--model", "script:" + scPath}); code != 1 {
		t.Errorf("exit %d, want 1 for a limit", code)
	}
	if !strings.Contains(out.String(), "stopped by limits.window_calls: to go further, raise limits.window_calls") {
		t.Errorf("output does not say which limit stopped the run and how to raise it:\n%s", out)
	}
}

// A run of 25,000 delegations (250 turns of a 100-call batch) ends ok
// with no limits configured: no conversation window or per-turn cap stops
// a plain delegation tree (issue 29: it needed AGENTRY_LIMITS__WINDOW_CALLS=0).
// Round one's run-wide max_agents_per_run still applies, so every
// delegation runs once it is raised.
func TestA25000DelegationRunEndsOk(t *testing.T) {
	parent := "---\nname: parent\ndescription: Fans out\nmax_turns: 300\nsubagents:\n  allow: [leaf]\n  max_concurrent: 16\n---\nYou delegate.\n"
	leaf := "---\nname: leaf\ndescription: Answers\n---\nYou answer.\n"
	batch := strings.TrimSuffix(strings.Repeat("{tool: delegate, args: {agent: leaf, task: part}}, ", 100), ", ")
	sc := "parent:\n" + turns(250, batch) + "  - say: all delegated\nleaf:\n  - say: done\n"
	res, db := runAgentJSON(t, "parent", map[string]string{"parent": parent, "leaf": leaf}, sc, "AGENTRY_DELEGATION__MAX_AGENTS_PER_RUN=30000")
	if res["status"] != "ok" || res["result"] != "all delegated" {
		t.Fatalf("result = %v, want ok", res)
	}
	if got := delegationsOK(t, db, res["run_id"].(string)); got != 25000 {
		t.Errorf("%d delegations ended ok, want 25000", got)
	}
}
