package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunShowsEveryRefusedDelegationAsAProgressLine(t *testing.T) {
	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "coord.md", "---\nname: coord\ndescription: Coordinates\nsubagents:\n  allow: [leaf]\n---\nYou coordinate.\n")
	writeFile(t, agents, "leaf.md", "---\nname: leaf\ndescription: Answers\nsubagents:\n  allow: [deep]\n  nested: true\n---\nYou answer.\n")
	writeFile(t, agents, "deep.md", "---\nname: deep\ndescription: Deeper\n---\nYou answer.\n")
	writeFile(t, agents, "outsider.md", "---\nname: outsider\ndescription: Not allowed\n---\nYou answer.\n")
	sc := writeFile(t, dir, "s.yaml", `coord:
  - calls:
      - {tool: delegate, args: {agent: leaf, task: one}}
      - {tool: delegate, args: {agent: outsider, task: two}}
  - say: done
leaf:
  - calls: [{tool: delegate, args: {agent: deep, task: three}}]
  - say: leaf done
deep:
  - say: too deep
`)
	env := []string{"AGENTRY_WORKSPACE=" + dir, "AGENTRY_DELEGATION__MAX_DEPTH=1"}
	code, out, errOut := cli(t, env, "run", "coord", "go", "--agents", agents, "--db", filepath.Join(dir, "t.db"), "--model", "script:"+sc)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	for _, want := range []string{
		"\n  ⊘ delegation to outsider refused (permission): denied by agent \"coord\": no subagents allow pattern matches (allow: [\"leaf\"])\n",
		// At max depth leaf is not offered the delegate tool: said once as it starts,
		"\n  ▶ leaf started: one\n    ⊘ leaf may not delegate here (depth): denied by global: a child would run at depth 2, beyond max_depth 1\n",
		// and a call it makes anyway (the script plays it) is refused.
		"\n    ⊘ delegation to deep refused (depth): denied by global: a child would run at depth 2, beyond max_depth 1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no line %q in:\n%s", want, out)
		}
	}

	env = []string{"AGENTRY_WORKSPACE=" + dir, "AGENTRY_DELEGATION__MAX_AGENTS_PER_RUN=2"}
	code, out, errOut = cli(t, env, "run", "coord", "go", "--agents", agents, "--db", filepath.Join(dir, "t.db"), "--model", "script:"+sc)
	if want := "\n    ✗ delegation to deep refused (max_agents): max agents per run (2) reached\n"; code != 0 || !strings.Contains(out, want) {
		t.Fatalf("exit %d, stderr %q; no line %q in:\n%s", code, errOut, want, out)
	}
}

func TestRunShowsADelegationThatWaitsForACap(t *testing.T) {
	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "coord.md", "---\nname: coord\ndescription: Coordinates\nsubagents:\n  allow: [leaf]\n  max_concurrent: 1\n---\nYou coordinate.\n")
	writeFile(t, agents, "leaf.md", "---\nname: leaf\ndescription: Answers\n---\nYou answer.\n")
	// The first leaf holds coord's only slot for an hour, so the second
	// must wait; the run is interrupted once the wait is on the terminal.
	sc := writeFile(t, dir, "s.yaml", `coord:
  - calls:
      - {tool: delegate, args: {agent: leaf, task: one}}
      - {tool: delegate, args: {agent: leaf, task: two}}
  - say: done
leaf:
  - {latency: 1h, say: ok}
`)
	want := "\n  ⏸ delegation to leaf waits for a slot: coord's subagents.max_concurrent (1) is reached\n"
	runUntilQueued(t, dir, agents, sc, want)
}

// runUntilQueued runs coord until the progress shows a queued line, then
// interrupts it, and wants the line want once in the output.
func runUntilQueued(t *testing.T, dir, agents, sc, want string, env ...string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &cancelOnLine{trigger: "⏸", cancel: cancel}
	s, _, errOut := testSession(append([]string{"AGENTRY_WORKSPACE=" + dir, "AGENTRY_DELEGATION__TIMEOUT=1m"}, env...)...)
	s.stdout = out
	code := s.main(ctx, []string{"run", "coord", "go", "--agents", agents, "--db", filepath.Join(dir, "t.db"), "--model", "script:" + sc})
	if code != 1 || strings.Count(out.String(), want) != 1 {
		t.Fatalf("exit %d, stderr %q; want the line %q once in:\n%s", code, errOut, want, out)
	}
}

// A background delegation waiting for limits.turn_agents says so, naming
// the limit, not the run-wide cap.
func TestRunShowsABackgroundDelegationThatWaitsForTheTurnCap(t *testing.T) {
	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "coord.md", "---\nname: coord\ndescription: Coordinates\nsubagents:\n  allow: [leaf]\n---\nYou coordinate.\n")
	writeFile(t, agents, "leaf.md", "---\nname: leaf\ndescription: Answers\n---\nYou answer.\n")
	sc := writeFile(t, dir, "s.yaml", `coord:
  - calls:
      - {tool: delegate, args: {agent: leaf, task: one, background: true}}
      - {tool: delegate, args: {agent: leaf, task: two, background: true}}
  - calls: [{tool: get_agent_results}]
  - say: done
leaf:
  - {latency: 1h, say: ok}
`)
	want := "\n  ⏸ delegation to leaf waits for a slot: the agents coord started in one turn, limits.turn_agents (1), is reached\n"
	runUntilQueued(t, dir, agents, sc, want, "AGENTRY_LIMITS__TURN_AGENTS=1")
}
