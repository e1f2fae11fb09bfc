package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/registry/folder"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/sqlite"
)

func runFixture(t *testing.T) (dir, agents, db, scriptPath string) {
	t.Helper()
	dir = t.TempDir()
	agents = filepath.Join(dir, "agents")
	writeFile(t, agents, "coord.md", "---\nname: coord\ndescription: Coordinates\nsubagents:\n  allow: [leaf]\n---\nYou coordinate.\n")
	writeFile(t, agents, "leaf.md", "---\nname: leaf\ndescription: Answers\n---\nYou answer.\n")
	scriptPath = writeFile(t, dir, "script.yaml", "coord:\n  - calls: [{tool: delegate, args: {agent: leaf, task: sub}}]\n  - say: all done\nleaf:\n  - say: leaf answer\n")
	return dir, agents, filepath.Join(dir, "trace.db"), scriptPath
}

func TestRunJSONPrintsTheFinalObjectAndWritesTheTrace(t *testing.T) {
	dir, agents, db, sc := runFixture(t)
	s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
	code := s.main(context.Background(), []string{"run", "coord", "do", "it", "--agents", agents, "--db", db, "--model", "script:" + sc, "--json"})
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	var res struct{ RunID, Status, Result, Error string }
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("stdout is not one JSON object: %q", out)
	}
	if res.Status != "ok" || res.Result != "all done" || !strings.Contains(out.String(), `"run_id"`) {
		t.Fatalf("result = %s", out)
	}
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var run trace.Run
	if err := json.Unmarshal(out.Bytes(), &struct {
		RunID *string `json:"run_id"`
	}{&run.ID}); err != nil {
		t.Fatal(err)
	}
	got, err := store.Run(context.Background(), run.ID)
	if err != nil || got.Status != trace.StatusOK || got.Task != "do it" {
		t.Fatalf("stored run = %+v, %v", got, err)
	}
	spans, _ := store.Spans(context.Background(), run.ID)
	var names []string
	for _, sp := range spans {
		names = append(names, sp.Name)
	}
	joined := strings.Join(names, ",")
	if !strings.Contains(joined, "invoke_agent coord") || !strings.Contains(joined, "execute_tool delegate") || !strings.Contains(joined, "invoke_agent leaf") {
		t.Fatalf("stored spans = %v", names)
	}
}

func TestRunStreamsProgressLines(t *testing.T) {
	dir, agents, db, sc := runFixture(t)
	s, out, _ := testSession("AGENTRY_WORKSPACE=" + dir)
	if code := s.main(context.Background(), []string{"run", "coord", "task", "--agents", agents, "--db", db, "--model", "script:" + sc}); code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	for _, want := range []string{"▶ coord started: task", "  ▶ leaf started: sub", "  ✓ leaf ok in", "✓ coord ok in", ": ok\n", "all done"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestRunReportsBadInputClearly(t *testing.T) {
	dir, agents, db, sc := runFixture(t)
	bad := writeFile(t, dir, "bad.yaml", "coord: [{sya: x}]\n")
	cases := []struct {
		name string
		args []string
		want string
		code int
	}{
		{"an unknown agent", []string{"ghost", "t"}, "unknown agent", 1},
		{"an unknown model", []string{"coord", "t", "--model", "nowhere:x"}, "unknown model provider", 1},
		{"a malformed script", []string{"coord", "t", "--model", "script:" + bad}, "malformed script", 1},
		{"a missing task", []string{"coord"}, `run needs a TASK after the agent "coord"`, 2},
		{"a run that fails", []string{"coord", "t", "--model", "script:" + writeFile(t, dir, "short.yaml", "coord: [{calls: [{tool: x}]}]\n")}, "ran out of turns", 1},
	}
	_ = sc
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
			code := s.main(context.Background(), append([]string{"run"}, append(c.args, "--agents", agents, "--db", db)...))
			if code != c.code || !strings.Contains(out.String()+errOut.String(), c.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
			}
		})
	}
}

func TestRunWithTheDemoModelDelegatesAndSumsUp(t *testing.T) {
	dir, agents, db, _ := runFixture(t)
	s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
	code := s.main(context.Background(), []string{"run", "coord", "plan the launch", "--agents", agents, "--db", db, "--model", "demo"})
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	for _, want := range []string{"▶ leaf started: plan the launch Focus: Answers", "- leaf: ", "coord recommends"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
}

// A run that never started is not a run: a --model that cannot be used is
// reported, in --json too, before the trace database is touched.
func TestRunRefusesABadModelBeforeRecordingAnything(t *testing.T) {
	dir, agents, db, _ := runFixture(t)
	s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
	code := s.main(context.Background(), []string{"run", "coord", "t", "--model", "nowhere:x", "--agents", agents, "--db", db, "--json"})
	var res struct {
		RunID  string `json:"run_id"`
		Status string `json:"status"`
		Error  string `json:"error"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || code != 1 {
		t.Fatalf("exit %d, stdout %q (%v), stderr %q", code, out, err, errOut)
	}
	if res.Status != "error" || res.RunID != "" || !strings.Contains(res.Error, "unknown model provider") {
		t.Fatalf("result = %+v", res)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Fatalf("a run that never started touched the trace database: %v", err)
	}
}

func TestRunNamesAnUnknownModelProviderOnce(t *testing.T) {
	dir, agents, db, _ := runFixture(t)
	s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
	code := s.main(context.Background(), []string{"run", "leaf", "x", "--model", "foo:bar", "--agents", agents, "--db", db})
	if want := "agentry: --model: model \"foo:bar\": unknown model provider \"foo\"\n"; code != 1 || errOut.String() != want {
		t.Fatalf("exit %d, stderr %q, want %q (stdout %q)", code, errOut, want, out)
	}
}

// cancelOnLine is run's stdout: it keeps what is written and calls cancel
// once a line containing trigger has been written.
type cancelOnLine struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	trigger string
	cancel  context.CancelFunc
}

func (w *cancelOnLine) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if w.cancel != nil && strings.Contains(w.buf.String(), w.trigger) {
		w.cancel()
		w.cancel = nil
	}
	return n, err
}

func (w *cancelOnLine) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func TestRunInterruptedCancelsTheRunAndEveryUnfinishedSpan(t *testing.T) {
	dir, agents, db, _ := runFixture(t)
	// Both leaves would take an hour; the run is interrupted once the
	// first has started, as Ctrl-C would.
	sc := writeFile(t, dir, "slow.yaml", "coord:\n  - calls:\n      - {tool: delegate, args: {agent: leaf, task: one}}\n      - {tool: delegate, args: {agent: leaf, task: two}}\n  - say: never\nleaf:\n  - {latency: 1h, say: too late}\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &cancelOnLine{trigger: "▶ leaf started", cancel: cancel}
	s, _, errOut := testSession("AGENTRY_WORKSPACE="+dir, "AGENTRY_DELEGATION__TIMEOUT=1m") // the guard if cancelling failed
	s.stdout = out
	code := s.main(ctx, []string{"run", "coord", "t", "--agents", agents, "--db", db, "--model", "script:" + sc})
	if code != 1 {
		t.Fatalf("exit %d, want 1; stdout %q, stderr %q", code, out, errOut)
	}
	m := regexp.MustCompile(`\nrun (\S+): cancelled\n`).FindStringSubmatch(out.String())
	if m == nil || !strings.Contains(out.String(), "error: run cancelled") {
		t.Fatalf("output does not say the run was cancelled:\n%s", out)
	}
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	run, err := store.Run(context.Background(), m[1])
	if err != nil || run.Status != trace.StatusCancelled || run.EndedAt.IsZero() {
		t.Fatalf("stored run = %+v, %v; want it ended cancelled", run, err)
	}
	spans, err := store.Spans(context.Background(), m[1])
	if err != nil {
		t.Fatal(err)
	}
	cancelled := map[string]int{}
	for _, sp := range spans {
		switch {
		case sp.EndedAt.IsZero() || sp.Status == trace.StatusRunning:
			t.Errorf("span %s left %s", sp.Name, sp.Status)
		case sp.Status == trace.StatusCancelled:
			cancelled[sp.Name]++
		case sp.Name != "chat script:"+sc || sp.Agent != "coord" || sp.Status != trace.StatusOK:
			// Only coord's first model turn finished before the interrupt.
			t.Errorf("span %s of %s ended %s, want cancelled", sp.Name, sp.Agent, sp.Status)
		}
	}
	if cancelled["invoke_agent coord"] != 1 || cancelled["execute_tool delegate"] != 2 || cancelled["invoke_agent leaf"] < 1 {
		t.Fatalf("cancelled spans = %v, want coord, both delegations and every started leaf", cancelled)
	}
}

// TestTheREADMEScriptExampleRuns keeps the README's script example true: the
// shipped agents played by docs/examples/research.script.yaml.
func TestTheREADMEScriptExampleRuns(t *testing.T) {
	dir := t.TempDir()
	s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
	code := s.main(context.Background(), []string{"run", "research-coordinator", "How did Q4 sales develop?",
		"--agents", "../../agents", "--db", filepath.Join(dir, "trace.db"),
		"--model", "script:../../docs/examples/research.script.yaml", "--json"})
	if code != 0 || !strings.Contains(out.String(), `"status":"ok"`) || !strings.Contains(out.String(), "Q4 sales rose 12%") {
		t.Fatalf("exit %d, stdout %s, stderr %s", code, out, errOut)
	}
}

// A sub-agent started in the background (a parallel_streaming batch, or a
// delegate call with background: true) is given its parent's conversation
// when the parent's context mode asks for it; it panicked on an empty one,
// which the shipped code-reviewer (parallel_streaming, context: full) met
// on every review.
func TestABackgroundDelegationGetsItsParentsConversation(t *testing.T) {
	cases := []struct{ name, subagents, args string }{
		{"a parallel_streaming batch with context full", "{allow: [leaf], execution: parallel_streaming, context: full}", "{agent: leaf, task: sub}"},
		{"a background call with context full", "{allow: [leaf], context: full}", "{agent: leaf, task: sub, background: true}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			agents := filepath.Join(dir, "agents")
			writeFile(t, agents, "coord.md", "---\nname: coord\ndescription: Coordinates\nsubagents: "+c.subagents+"\n---\nYou coordinate.\n")
			writeFile(t, agents, "leaf.md", "---\nname: leaf\ndescription: Answers\n---\nYou answer.\n")
			sc := writeFile(t, dir, "script.yaml", "coord:\n  - calls: [{tool: delegate, args: "+c.args+"}]\n  - calls: [{tool: get_agent_results, args: {}}]\n  - say: all done\nleaf:\n  - say: leaf answer\n")
			db := filepath.Join(dir, "trace.db")
			s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
			if code := s.main(context.Background(), []string{"run", "coord", "go", "--agents", agents, "--db", db, "--model", "script:" + sc}); code != 0 {
				t.Fatalf("exit %d: %s %s", code, out, errOut)
			}
			if strings.Contains(out.String(), "panicked") || !strings.Contains(out.String(), "✓ leaf ok") {
				t.Fatalf("the sub-agent did not run:\n%s", out)
			}
		})
	}
}

// With --json, a run that never starts prints its {run_id, status, result,
// error} object, whichever way it was asked for: --continue and --replay
// printed nothing on stdout.
func TestRunJSONSaysWhyAContinuationOrReplayNeverStarted(t *testing.T) {
	dir, agents, db, sc := runFixture(t)
	s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
	if code := s.main(context.Background(), []string{"run", "coord", "go", "--agents", agents, "--db", db, "--model", "script:" + sc, "--json"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var ok struct {
		RunID string `json:"run_id"`
	}
	json.Unmarshal(out.Bytes(), &ok)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--continue", "nosuchrun", "more"}, `run "nosuchrun": not found`},
		{[]string{"run", "--continue", ok.RunID}, "only a run stopped by its budget continues without a TASK"},
		{[]string{"run", "--replay", "nosuchrun"}, `run "nosuchrun": not found`},
		{[]string{"run", "--replay", ok.RunID, "--db", filepath.Join(dir, "none.db")}, "no trace database at"},
	} {
		s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
		args := append(slices.Clone(c.args), "--json", "--agents", agents)
		if !slices.Contains(c.args, "--db") {
			args = append(args, "--db", db)
		}
		code := s.main(context.Background(), args)
		var res struct{ RunID, Status, Error string }
		if err := json.Unmarshal(out.Bytes(), &res); err != nil || code != 1 || res.Status != "error" || !strings.Contains(res.Error, c.want) {
			t.Errorf("%v: exit %d, stdout %q (%v), stderr %q", c.args, code, out, err, errOut)
		}
	}
}

// TestTheREADMENamesShippedFiles keeps the README's commands runnable as
// written: each agent, workflow and suite a usage line names is shipped
// (it named an agent "ops" that does not exist).
func TestTheREADMENamesShippedFiles(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := folder.Load("../../agents", registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile(`cmd/agentry (run|chat|permissions|history|workflow run|workflow explain|eval) ([a-z][a-z0-9-]*)`)
	lines := named.FindAllStringSubmatch(string(readme), -1)
	if len(lines) < 8 {
		t.Fatalf("found %d usage lines naming a file; the pattern no longer reads the README", len(lines))
	}
	for _, m := range lines {
		var ok bool
		switch m[1] {
		case "workflow run", "workflow explain":
			_, err := os.Stat("../../workflows/" + m[2] + ".yaml")
			ok = err == nil
		case "eval":
			_, err := os.Stat("../../evals/" + m[2] + ".yaml")
			ok = err == nil
		default:
			_, ok = snap.Agent(m[2])
		}
		if !ok {
			t.Errorf("README: %q names %q, which is not shipped", m[0], m[2])
		}
	}
}

func TestAMisspeltModelGetsADidYouMean(t *testing.T) {
	dir, agents, db, _ := runFixture(t)
	for spec, want := range map[string]string{
		"demoo":             `agentry: --model: model "demoo": not a configured alias, a Claude Code alias, a known model id or display name, or provider:model; did you mean demo?` + "\n",
		"anthropc:claude-x": `agentry: --model: model "anthropc:claude-x": unknown model provider "anthropc"; did you mean anthropic?` + "\n",
		"fast":              `agentry: --model: model "fast": not a configured alias, a Claude Code alias, a known model id or display name, or provider:model; did you mean fasts?` + "\n",
	} {
		s, _, errOut := testSession("AGENTRY_WORKSPACE="+dir, "AGENTRY_MODELS__ALIASES__FASTS=demo")
		if code := s.main(context.Background(), []string{"run", "leaf", "x", "--model", spec, "--agents", agents, "--db", db}); code != 1 || errOut.String() != want {
			t.Errorf("--model %s: exit %d, stderr %q, want %q", spec, code, errOut, want)
		}
	}
}

// A run whose tools cannot start (an MCP server that exits at once) never
// starts: with --json it says so in its result object, as a refused run
// does; stdout was empty.
func TestRunJSONSaysWhyItsToolsCouldNotStart(t *testing.T) {
	dir, agents, db, sc := runFixture(t)
	cfg := writeFile(t, dir, "agentry.yaml", "mcp:\n  servers:\n    broken: {command: \"false\"}\n") // exits at once
	s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
	code := s.main(context.Background(), []string{"run", "coord", "go", "--config", cfg, "--agents", agents, "--db", db, "--model", "script:" + sc, "--json"})
	var res struct{ RunID, Status, Error string }
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || code != 1 || res.Status != "error" || !strings.Contains(res.Error, `mcp server "broken"`) {
		t.Fatalf("exit %d, stdout %q (%v), stderr %q", code, out, err, errOut)
	}
}

// With engine: temporal and no server to submit to, the run never starts:
// --json says so in the result object.
func TestRunJSONSaysWhenNoTemporalServerTakesTheRun(t *testing.T) {
	dir, agents, db, _ := runFixture(t)
	s, out, errOut := testSession("AGENTRY_WORKSPACE="+dir, "AGENTRY_ENGINE=temporal", "AGENTRY_TEMPORAL__ADDRESS=127.0.0.1:1")
	code := s.main(context.Background(), []string{"run", "coord", "go", "--agents", agents, "--db", db, "--json"})
	var res struct{ RunID, Status, Error string }
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || code != 1 || res.Status != "error" || !strings.Contains(res.Error, "temporal at 127.0.0.1:1") {
		t.Fatalf("exit %d, stdout %q (%v), stderr %q", code, out, err, errOut)
	}
}
