package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/trace"
)

// copyTree copies the files of folder src (not its subfolders) into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dst, e.Name(), string(data))
	}
}

// shippedSuite is the repository's agents and evals in a temporary
// project, with the environment that runs agentry there.
func shippedSuite(t *testing.T) (dir string, env []string) {
	t.Helper()
	dir = t.TempDir()
	copyTree(t, "../../agents", filepath.Join(dir, "agents"))
	copyTree(t, "../../evals", filepath.Join(dir, "evals"))
	return dir, []string{"AGENTRY_WORKSPACE=" + dir, "AGENTRY_AGENTS=" + filepath.Join(dir, "agents"),
		"AGENTRY_DB=" + filepath.Join(dir, "trace.db"), "AGENTRY_EVALS=" + filepath.Join(dir, "evals")}
}

func runEval(t *testing.T, env []string, args ...string) (int, evalJSON, string) {
	t.Helper()
	code, out, errOut := cli(t, env, append([]string{"eval"}, args...)...)
	var got evalJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("eval --json printed %q (stderr %q): %v", out, errOut, err)
	}
	return code, got, errOut
}

func TestTheShippedSuitePassesOfflineAndARegressionFailsIt(t *testing.T) {
	dir, env := shippedSuite(t)
	code, got, errOut := runEval(t, env, "research", "--json")
	if code != 0 || got.Suite != "research" || got.Passed != 5 || got.Failed != 0 || len(got.Cases) != 5 {
		t.Fatalf("exit %d, %+v, stderr %q", code, got, errOut)
	}
	for _, c := range got.Cases {
		if !c.Passed || c.RunID == "" || c.Failures == nil || len(c.Failures) != 0 {
			t.Errorf("case %+v", c)
		}
	}
	// A deliberate regression: the coordinator no longer may ask the
	// citation checker, and its prompt stops asking for sources.
	coord := filepath.Join(dir, "agents", "research-coordinator.md")
	data, err := os.ReadFile(coord)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(data), "allow: [data-analyst, web-researcher, citation-checker]", "allow: [data-analyst, web-researcher]", 1)
	broken = strings.Replace(broken, "4. Before you finish, send the claims", "4. Skip checking. Send the claims", 1)
	if broken == string(data) {
		t.Fatal("the regression changed nothing; has the shipped agent changed?")
	}
	writeFile(t, filepath.Join(dir, "agents"), "research-coordinator.md", broken)
	code, got, _ = runEval(t, env, "research", "--json")
	if code != 1 || got.Failed != 3 || got.Passed != 2 {
		t.Fatalf("after the regression: exit %d, %d passed, %d failed; want exit 1, 2 and 3: %+v", code, got.Passed, got.Failed, got)
	}
	why := map[string]string{}
	for _, c := range got.Cases {
		why[c.Name] = strings.Join(c.Failures, "\n")
	}
	for _, want := range []string{"trajectory: agents any: expected [data-analyst web-researcher citation-checker], got [", "score 0.67 (below 1.00)", "no_denied: 1 denied calls: delegate"} {
		if !strings.Contains(why["sourced-brief"], want) {
			t.Errorf("sourced-brief failed with\n%s\nwant a line with %q", why["sourced-brief"], want)
		}
	}
	if !strings.Contains(why["checks-citations-last"], "trajectory: agents in_order: expected [citation-checker]") {
		t.Errorf("checks-citations-last failed with %q", why["checks-citations-last"])
	}
	if why["data-analyst-reads-the-workspace"] != "no_denied: 1 denied calls: delegate" {
		t.Errorf("data-analyst-reads-the-workspace failed with %q", why["data-analyst-reads-the-workspace"])
	}
}

func TestEvalSaysWhatIsWrongWithItsArguments(t *testing.T) {
	_, env := shippedSuite(t)
	cases := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{}, 2, "eval takes one SUITE"},
		{[]string{"reserch"}, 1, "no eval suite \"reserch\": not a file, and not in"},
		{[]string{"research", "--against", "abcd", "--agents", "x"}, 2, "--against and --agents are two ways"},
	}
	for _, c := range cases {
		code, _, errOut := cli(t, env, append([]string{"eval"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.stderr) {
			t.Errorf("eval %q: exit %d, stderr %q; want %d and %q", c.args, code, errOut, c.code, c.stderr)
		}
	}
	bad := writeFile(t, t.TempDir(), "broken.yaml", "agent: x\ncases:\n  - name: a\n    task: t\n    expect: {output_regex: \"(\"}\n")
	code, _, errOut := cli(t, env, "eval", bad)
	if code != 1 || !strings.Contains(errOut, bad+":5: case \"a\" output_regex") {
		t.Errorf("a broken suite: exit %d, stderr %q", code, errOut)
	}
}

// A suite of one case says "1 case", not "1 cases".
func TestEvalOfOneCaseCountsItInTheSingular(t *testing.T) {
	dir, env := shippedSuite(t)
	writeFile(t, filepath.Join(dir, "evals"), "one.yaml", "agent: data-analyst\ncases:\n  - {name: only, task: Sum the sales}\n")
	code, out, errOut := cli(t, env, "eval", "one")
	if code != 0 || !strings.Contains(out, "eval one: 1 case of agent data-analyst") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// Ctrl-C during an eval cancels its cases' runs, which are recorded
// cancelled, as `agentry run`'s are, not left running for a reaper to
// find interrupted.
func TestAnInterruptedEvalRecordsItsRunsCancelled(t *testing.T) {
	bin := buildTraceTestBinary(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agents"), "slow.md", "---\nname: slow\ndescription: Thinks for a long time\n---\nYou think.\n")
	writeFile(t, filepath.Join(dir, "evals"), "slow.yaml", "agent: slow\ncases:\n  - name: ponders\n    task: ponder\n    script:\n      slow:\n        - {latency: 1h, say: never}\n")
	db := filepath.Join(dir, "traces.db")
	cmd := exec.Command(bin, "eval", "slow", "--agents", filepath.Join(dir, "agents"), "--evals", filepath.Join(dir, "evals"), "--db", db)
	cmd.Env = append(os.Environ(), "AGENTRY_WORKSPACE="+dir)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	id := waitForRunningRunID(t, db)
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(out.String(), "slow: 0 passed, 1 failed (eval ") {
		t.Errorf("eval after Ctrl-C: %v, want exit 1, its case failed and the eval printed\nstdout: %s\nstderr: %s", err, out.String(), errOut.String())
	}
	store, err := openStore(db) // opening it would mark a run its process left running interrupted
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	run, err := store.Run(context.Background(), id)
	if err != nil || run.Status != trace.StatusCancelled {
		t.Errorf("the case's run after Ctrl-C: %+v, %v; want it cancelled\nstderr: %s", run, err, errOut.String())
	}
}
