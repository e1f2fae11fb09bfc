package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/sqlite"
)

// askFixture is a writer agent whose file writes need approval; its script
// writes two files, then answers.
func askFixture(t *testing.T) (dir, agents, db, scriptPath string) {
	t.Helper()
	dir = t.TempDir()
	agents = filepath.Join(dir, "agents")
	writeFile(t, agents, "writer.md", "---\nname: writer\ndescription: Writes\ntools:\n  ask: [filesystem.write_file]\n---\nYou write.\n")
	scriptPath = writeFile(t, dir, "script.yaml", `writer:
  - calls: [{tool: filesystem.write_file, args: {path: a.txt, content: "A"}}]
  - calls: [{tool: filesystem.write_file, args: {path: b.txt, content: "B"}}]
  - say: written
`)
	return dir, agents, filepath.Join(dir, "trace.db"), scriptPath
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

func TestRunApprovesAndDeniesAsksFromFlags(t *testing.T) {
	dir, agents, db, sc := askFixture(t)
	s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
	code := s.main(context.Background(), []string{"run", "writer", "go", "--agents", agents, "--db", db, "--model", "script:" + sc, "--approve", "filesystem.write_*"})
	if code != 0 || !exists(filepath.Join(dir, "a.txt")) || !exists(filepath.Join(dir, "b.txt")) {
		t.Fatalf("--approve: exit %d, files %v %v\n%s%s", code, exists(filepath.Join(dir, "a.txt")), exists(filepath.Join(dir, "b.txt")), out, errOut)
	}
	os.Remove(filepath.Join(dir, "a.txt"))
	os.Remove(filepath.Join(dir, "b.txt"))
	s, out, errOut = testSession("AGENTRY_WORKSPACE=" + dir)
	code = s.main(context.Background(), []string{"run", "writer", "go", "--agents", agents, "--db", db, "--model", "script:" + sc, "--deny-asks", "--json"})
	if code != 0 || exists(filepath.Join(dir, "a.txt")) {
		t.Fatalf("--deny-asks: exit %d, a.txt written %v\n%s%s", code, exists(filepath.Join(dir, "a.txt")), out, errOut)
	}
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	list, err := store.Approvals(context.Background(), approval.Filter{Status: approval.Denied})
	if err != nil || len(list) != 2 || list[0].DecidedBy != "--deny-asks" {
		t.Fatalf("denied approvals = %+v, %v", list, err)
	}
}

// syncBuffer is a buffer two goroutines may use: the run writes while the
// test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestARunWithoutTerminalWaitsForAnAnswerFromElsewhere answers a waiting
// run's calls with `agentry approvals`, as a script or another person would.
func TestARunWithoutTerminalWaitsForAnAnswerFromElsewhere(t *testing.T) {
	dir, agents, db, sc := askFixture(t)
	s, _, _ := testSession("AGENTRY_WORKSPACE=" + dir)
	var out, errOut syncBuffer
	s.stdout, s.stderr = &out, &errOut
	done := make(chan int, 1)
	go func() {
		done <- s.main(context.Background(), []string{"run", "writer", "go", "--agents", agents, "--db", db, "--model", "script:" + sc})
	}()
	id := waitForPending(t, db, &errOut)
	// The row is written first, then the run says how to answer it.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(errOut.String(), "waiting for an answer: `agentry approvals approve "+id); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("stderr does not say how to answer:\n%s", errOut.String())
		}
	}
	a, _, aErr := testSession()
	if code := a.main(context.Background(), []string{"approvals", "deny", id, "--db", db}); code != 2 || !strings.Contains(aErr.String(), "deny needs --reason") {
		t.Errorf("deny without a reason: exit %d %s", code, aErr)
	}
	a, aOut, aErr := testSession("USER=lee")
	if code := a.main(context.Background(), []string{"approvals", "approve", id, "--for-run", "--db", db}); code != 0 || !strings.HasPrefix(aOut.String(), "approved "+id) {
		t.Fatalf("approve: exit %d %s %s", code, aOut, aErr)
	}
	select {
	case code := <-done:
		if code != 0 || !exists(filepath.Join(dir, "b.txt")) {
			t.Fatalf("run exit %d, b.txt %v\n%s", code, exists(filepath.Join(dir, "b.txt")), errOut.String())
		}
		if !strings.Contains(out.String(), "✓ filesystem.write_file approved by cli:lee\n") ||
			!strings.Contains(out.String(), "✓ filesystem.write_file approved by cli:lee: approved earlier for this run") {
			t.Errorf("progress does not show the answers:\n%s", out.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the run did not end after its call was approved for the run")
	}
	a, aOut, _ = testSession()
	if code := a.main(context.Background(), []string{"approvals", "list", "--all", "--json", "--db", db}); code != 0 {
		t.Fatal("list failed")
	}
	var list []approval.Approval
	if err := json.Unmarshal(aOut.Bytes(), &list); err != nil || len(list) != 1 || list[0].DecidedBy != "cli:lee" || !list[0].ForRun {
		t.Errorf("list = %s (%v)", aOut, err)
	}
}

// waitForPending waits for the first pending approval in db and returns its ID.
func waitForPending(t *testing.T, db string, errOut *syncBuffer) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if exists(db) {
			if store, err := sqlite.Open(db); err == nil {
				list, _ := store.Approvals(context.Background(), approval.Filter{Status: approval.Pending})
				store.Close()
				if len(list) > 0 {
					return list[0].ID
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no pending approval; stderr:\n%s", errOut.String())
	return ""
}

func TestBudgetStopAndContinue(t *testing.T) {
	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "coord.md", "---\nname: coord\ndescription: Coordinates\nsubagents:\n  allow: [leaf]\n---\nYou coordinate.\n")
	writeFile(t, agents, "leaf.md", "---\nname: leaf\ndescription: Answers\n---\nYou answer.\n")
	sc := writeFile(t, dir, "script.yaml", `coord:
  - tokens: {input: 100, output: 20}
    calls: [{tool: delegate, args: {agent: leaf, task: "find the pears"}}]
  - say: all done
leaf:
  - {say: "12 pears", tokens: {input: 40, output: 10}}
`)
	db := filepath.Join(dir, "trace.db")
	s, out, errOut := testSession("AGENTRY_WORKSPACE=" + dir)
	code := s.main(context.Background(), []string{"run", "coord", "count", "--agents", agents, "--db", db, "--model", "script:" + sc, "--budget-tokens", "150", "--json"})
	var res struct {
		RunID                 string `json:"run_id"`
		Status, Result, Error string
	}
	json.Unmarshal(out.Bytes(), &res)
	if code != 1 || res.Status != "limit" || !strings.Contains(res.Result, "The run stopped at its budget: 170 tokens used of a budget of 150.") ||
		!strings.Contains(res.Result, `- leaf: "find the pears" → 12 pears`) {
		t.Fatalf("budget run: exit %d %+v %s", code, res, errOut)
	}
	s, out, errOut = testSession("AGENTRY_WORKSPACE=" + dir)
	code = s.main(context.Background(), []string{"run", "--continue", res.RunID, "--budget-tokens", "1000", "--agents", agents, "--db", db, "--json"})
	var next struct {
		RunID  string `json:"run_id"`
		Status string
	}
	json.Unmarshal(out.Bytes(), &next)
	if code != 0 || next.Status != "ok" || next.RunID == res.RunID {
		t.Fatalf("continue: exit %d %s %s", code, out, errOut)
	}
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	run, _ := store.Run(context.Background(), next.RunID)
	if !strings.HasPrefix(run.Task, "count\n\n---\nThis continues run "+res.RunID) || !strings.Contains(run.Task, "12 pears") || run.Agent != "coord" {
		t.Errorf("continuation task = %q", run.Task)
	}
	s, _, errOut = testSession()
	if code := s.main(context.Background(), []string{"run", "--continue", next.RunID, "--agents", agents, "--db", db}); code != 1 || !strings.Contains(errOut.String(), "ended ok, not at its budget") {
		t.Errorf("continuing an ok run: exit %d %s", code, errOut)
	}
}

func TestPermissionsShowsTheAskVerdict(t *testing.T) {
	_, agents, _, _ := askFixture(t)
	s, out, errOut := testSession()
	if code := s.main(context.Background(), []string{"permissions", "writer", "--agents", agents}); code != 0 {
		t.Fatalf("exit %d %s", code, errOut)
	}
	if !strings.Contains(out.String(), `ask    filesystem.write_file`) || !strings.Contains(out.String(), `needs approval for each call: agent "writer" ask pattern "filesystem.write_file"`) {
		t.Errorf("output:\n%s", out)
	}
	s, out, _ = testSession()
	s.main(context.Background(), []string{"permissions", "writer", "--agents", agents, "--json"})
	var e struct {
		Tools []struct {
			Tool    string
			Allowed bool
			Ask     bool
			Level   string
		}
	}
	if err := json.Unmarshal(out.Bytes(), &e); err != nil {
		t.Fatal(err)
	}
	asks := 0
	for _, d := range e.Tools {
		if d.Ask {
			asks++
			if d.Tool != "filesystem.write_file" || !d.Allowed || d.Level != "writer" {
				t.Errorf("ask decision %+v", d)
			}
		}
	}
	if asks != 1 {
		t.Errorf("json: %s", out)
	}
}

// The approvals commands read a trace database; where there is none yet
// they say there is no approval and create none (they created an empty
// database, as `traces list` does not).
func TestApprovalsCreateNoDatabase(t *testing.T) {
	db := filepath.Join(t.TempDir(), "none.db")
	cases := []struct {
		args        []string
		code        int
		out, errOut string
	}{
		{[]string{"approvals", "list"}, 0, "no approvals waiting\n", ""},
		{[]string{"approvals", "list", "--all", "--json"}, 0, "[]\n", ""},
		{[]string{"approvals", "approve", "abc"}, 1, "", "agentry: no trace database at " + db + ", so no such approval\n"},
		{[]string{"approvals", "deny", "abc", "--reason", "no"}, 1, "", "agentry: no trace database at " + db + ", so no such approval\n"},
	}
	for _, c := range cases {
		s, out, errOut := testSession()
		code := s.main(context.Background(), append(c.args, "--db", db))
		if code != c.code || out.String() != c.out || errOut.String() != c.errOut {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, %q, %q", c.args, code, out, errOut, c.code, c.out, c.errOut)
		}
		if exists(db) {
			t.Fatalf("%v created the database", c.args)
		}
	}
	s, _, _ := testSession() // completing an approval ID reads the same way
	s.main(context.Background(), []string{"__complete", "approvals", "approve", "", "--db", db})
	if exists(db) {
		t.Fatal("completing an approval ID created the database")
	}
}

func TestApprovalsListSaysWhoAnsweredAndWhy(t *testing.T) {
	var b bytes.Buffer
	printApprovals(&b, []approval.Approval{
		{ID: "a1", Status: approval.Denied, DecidedBy: "cli:lee", Note: "not now"},
		{ID: "a2", Status: approval.Approved, DecidedBy: "web"},
	})
	for _, want := range []string{"\n    denied by cli:lee: not now\n", "\n    approved by web\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("list lacks %q:\n%s", want, b.String())
		}
	}
}

// A follow-up (run --continue RUN_ID TASK) takes --approve as run does.
func TestAFollowUpApprovesAsksFromFlags(t *testing.T) {
	dir, agents, db, sc := askFixture(t)
	env := []string{"AGENTRY_WORKSPACE=" + dir, "AGENTRY_APPROVAL_TIMEOUT=2s"} // unanswered, a call is denied soon
	args := []string{"--agents", agents, "--db", db, "--model", "script:" + sc, "--approve", "filesystem.write_*", "--json"}
	s, out, errOut := testSession(env...)
	if code := s.main(context.Background(), append([]string{"run", "writer", "go"}, args...)); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	var first struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal(out.Bytes(), &first); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "a.txt"))
	os.Remove(filepath.Join(dir, "b.txt"))
	s, out, errOut = testSession(env...)
	code := s.main(context.Background(), append([]string{"run", "--continue", first.RunID, "again"}, args...))
	if code != 0 || !exists(filepath.Join(dir, "a.txt")) || !exists(filepath.Join(dir, "b.txt")) {
		t.Fatalf("run --continue --approve: exit %d, files %v %v\n%s%s", code, exists(filepath.Join(dir, "a.txt")), exists(filepath.Join(dir, "b.txt")), out, errOut)
	}
}

// chat's asked calls wait in the trace store, where the web UI and
// `agentry approvals` answer them, and it says so on stderr: its terminal
// is for its messages.
func TestChatsAskedCallsWaitInTheStore(t *testing.T) {
	dir, agents, db, sc := askFixture(t)
	s, out, errOut := testSession("AGENTRY_WORKSPACE="+dir, "AGENTRY_APPROVAL_TIMEOUT=1s")
	s.stdin = strings.NewReader("go\n/exit\n")
	s.main(context.Background(), []string{"chat", "writer", "--agents", agents, "--db", db, "--model", "script:" + sc})
	if !strings.Contains(errOut.String(), "agentry approvals approve") {
		t.Errorf("chat did not say how to answer its asked call:\n%s%s", out, errOut)
	}
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	list, err := store.Approvals(context.Background(), approval.Filter{Status: approval.Denied})
	if err != nil || len(list) == 0 || list[0].DecidedBy != "timeout" {
		t.Fatalf("chat's approvals = %+v, %v; want its asked calls in the store, denied by timeout", list, err)
	}
}
