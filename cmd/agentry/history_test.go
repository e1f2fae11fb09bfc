package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

func historyOf(t *testing.T, env []string, agent string) []versionJSON {
	t.Helper()
	code, out, errOut := cli(t, env, "history", agent, "--json")
	var list []versionJSON
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil {
		t.Fatalf("history --json: exit %d, %q, stderr %q: %v", code, out, errOut, err)
	}
	return list
}

// On the SQLite store every command shares: an edit made while nothing
// ran becomes a version the next command finds, eval --against runs a
// stored version, its runs name the version they ran, and --restore
// brings the first version back byte for byte as a version of its own.
func TestHistoryEvalAgainstAndRestoreOnSQLite(t *testing.T) {
	dir, env := shippedSuite(t)
	coord := filepath.Join(dir, "agents", "research-coordinator.md")
	original, err := os.ReadFile(coord)
	if err != nil {
		t.Fatal(err)
	}
	list := historyOf(t, env, "research-coordinator")
	if len(list) != 1 || list[0].Hash != registry.Hash(original) || list[0].Source != "filesystem" || !list[0].Current ||
		!strings.HasPrefix(list[0].Summary, "created (") {
		t.Fatalf("first history = %+v", list)
	}
	broken := strings.Replace(string(original), "4. Before you finish, send the claims", "4. Skip checking. Send the claims", 1)
	writeFile(t, filepath.Join(dir, "agents"), "research-coordinator.md", broken)
	var caseRun string
	if code, got, errOut := runEval(t, env, "research", "--json", "--against", list[0].Hash[:8]); code != 0 || got.Failed != 0 || got.Version != list[0].Hash {
		t.Fatalf("eval --against the first version: exit %d, %+v, stderr %q", code, got, errOut)
	} else {
		caseRun = got.Cases[0].RunID
		code, out, _ := cli(t, env, "traces", "show", got.Cases[0].RunID, "--json")
		var doc trace.Document
		if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil {
			t.Fatalf("traces show: exit %d: %v", code, err)
		}
		if v := doc.Spans[0].Attributes[semconv.AttrAgentVersion]; doc.Spans[0].Agent != "research-coordinator" || v != list[0].Hash {
			t.Errorf("the case's root span ran %s at %v, want research-coordinator at %s", doc.Spans[0].Agent, v, list[0].Hash)
		}
	}
	list = historyOf(t, env, "research-coordinator")
	if len(list) != 2 || list[0].Hash != registry.Hash([]byte(broken)) || !list[0].Current || list[1].Current ||
		!strings.Contains(list[0].Summary, "body +1 −1") {
		t.Fatalf("history after the edit = %+v", list)
	}
	if !slices.ContainsFunc(list[1].Runs, func(r versionRunJSON) bool { return r.RunID == caseRun }) || len(list[0].Runs) != 0 {
		t.Errorf("the eval's run %s ran the first version; history lists runs %+v under it and %+v under the edit", caseRun, list[1].Runs, list[0].Runs)
	}
	code, out, errOut := cli(t, env, "history", "research-coordinator", "--restore", list[1].Hash[:8])
	if code != 0 || !strings.Contains(out, "restored research-coordinator.md to version "+list[1].Hash[:12]) {
		t.Fatalf("--restore: exit %d, %q, %q", code, out, errOut)
	}
	if now, _ := os.ReadFile(coord); string(now) != string(original) {
		t.Fatalf("the restored file differs from the first version:\n%s", now)
	}
	list = historyOf(t, env, "research-coordinator")
	if len(list) != 3 || list[0].Hash != registry.Hash(original) || list[0].Source != "cli" ||
		!strings.HasPrefix(list[0].Summary, "restore of "+list[2].Hash[:12]) {
		t.Fatalf("history after the restore = %+v", list)
	}
	if code, _, errOut := cli(t, env, "history", "research-coordinator", "--restore", "ffff"); code != 1 || !strings.Contains(errOut, "not found") {
		t.Errorf("--restore of an unknown hash: exit %d, %q", code, errOut)
	}
}

// serve records versions in the database it shares with every command:
// the first content found on start, a write its watcher sees (on the
// History page while it runs), and both listed by `agentry history` after
// it stopped.
func TestServeKeepsVersionsInTheDatabase(t *testing.T) {
	dir, db := t.TempDir(), filepath.Join(t.TempDir(), "t.db")
	writeFile(t, dir, "helper.md", "---\nname: helper\ndescription: Helps with things.\n---\nYou help.\n")
	var out, errOut lockedBuffer
	s := &session{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" },
		env: func() []string { return []string{"AGENTRY_TOKEN=t0ken-t0ken-t0ken"} }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- s.main(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--agents", dir, "--db", db}) }()
	url := waitURL(t, &out, done)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	if resp, err := client.Get(url); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	history := strings.Replace(url, "/?token=t0ken-t0ken-t0ken", "/agents/helper/history", 1)
	page := func() string {
		resp, err := client.Get(history)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s = %d: %s", history, resp.StatusCode, body)
		}
		return string(body)
	}
	if p := page(); !strings.Contains(p, "created (5 lines)") {
		t.Fatalf("the History page does not list the first version:\n%s", p)
	}
	writeFile(t, dir, "helper.md", "---\nname: helper\ndescription: Helps with everything.\n---\nYou help.\n")
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(page(), "description changed"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the watcher's change never reached the History page:\n%s\nserve's log:\n%s", page(), errOut.String())
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}
	list := historyOf(t, []string{"AGENTRY_AGENTS=" + dir, "AGENTRY_DB=" + db}, "helper")
	if len(list) != 2 || list[0].Source != "filesystem" || list[0].Summary != "description changed" || !list[0].Current ||
		list[1].Summary != "created (5 lines)" {
		t.Fatalf("history after serve = %+v", list)
	}
}

// pipelineWorkspace is a workspace holding the shipped content-pipeline
// workflow and a SQLite trace database: its folder, the workflow file,
// its text, and the environment that points the commands at them.
func pipelineWorkspace(t *testing.T) (dir, wf string, src []byte, env []string) {
	t.Helper()
	dir = t.TempDir()
	src, err := os.ReadFile("../../workflows/content-pipeline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	wf = writeFile(t, dir, "workflows/content-pipeline.yaml", string(src))
	env = []string{"AGENTRY_WORKSPACE=" + dir, "AGENTRY_AGENTS=" + filepath.Join(dir, "agents"), "AGENTRY_DB=" + filepath.Join(dir, "trace.db"),
		"AGENTRY_WORKFLOWS=" + filepath.Join(dir, "workflows")}
	return dir, wf, src, env
}

// A workflow run records the version of its file, so `history --workflow`
// lists each run under the version it ran, in --json and in the text.
func TestHistoryListsTheRunsOfEachWorkflowVersionOnSQLite(t *testing.T) {
	_, wf, src, env := pipelineWorkspace(t)
	runFlow := func() string {
		t.Helper()
		code, out, errOut := cli(t, env, "workflow", "run", "content-pipeline", "--input", "topic=tea", "--model", "demo", "--json")
		var res struct {
			RunID string `json:"run_id"`
		}
		if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || res.RunID == "" {
			t.Fatalf("workflow run: exit %d, %s %s: %v", code, out, errOut, err)
		}
		return res.RunID
	}
	first := runFlow()
	edited := strings.Replace(string(src), `timeout: "20m"`, `timeout: "30m"`, 1)
	if err := os.WriteFile(wf, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	second, third := runFlow(), runFlow()

	code, out, errOut := cli(t, env, "history", "content-pipeline", "--workflow", "--json")
	var list []versionJSON
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil {
		t.Fatalf("history --workflow --json: exit %d, %q, %q: %v", code, out, errOut, err)
	}
	runIDs := func(v versionJSON) []string {
		var ids []string
		for _, r := range v.Runs {
			if r.Status != trace.StatusOK || r.StartedAt.IsZero() {
				t.Errorf("run %+v: want its status and start", r)
			}
			ids = append(ids, r.RunID)
		}
		return ids
	}
	if len(list) != 2 || list[0].Hash != registry.Hash([]byte(edited)) || list[1].Hash != registry.Hash(src) ||
		!slices.Equal(runIDs(list[0]), []string{third, second}) || !slices.Equal(runIDs(list[1]), []string{first}) {
		t.Fatalf("history --workflow --json = %+v\nwant %s's runs [%s %s] and %s's [%s]", list, list[0].Hash, third, second, list[1].Hash, first)
	}

	code, out, errOut = cli(t, env, "history", "content-pipeline", "--workflow")
	lines := strings.Split(out, "\n")
	at := func(s string) int {
		return slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, s) })
	}
	v2, v1 := at(trace.ShortHash(list[0].Hash)), at(trace.ShortHash(list[1].Hash))
	if code != 0 || !(v2 < at("run "+third) && at("run "+third) < at("run "+second) && at("run "+second) < v1 && v1 < at("run "+first)) {
		t.Errorf("history --workflow (exit %d, %s) does not list each run under its version:\n%s", code, errOut, out)
	}
}

// A misspelt name has no versions; history says which name has some.
func TestHistoryOfAMisspeltNameSuggestsOneWithVersions(t *testing.T) {
	_, env := shippedSuite(t)
	historyOf(t, env, "research-coordinator") // records the folder's agents
	code, _, errOut := cli(t, env, "history", "research-coordinatr")
	if want := `agent "research-coordinatr" has no versions; did you mean research-coordinator?`; code != 1 || !strings.Contains(errOut, want) {
		t.Fatalf("exit %d, stderr %q; want %q", code, errOut, want)
	}
}

// A flag that names a stored version but is given no hash ("HEAD", a
// branch) is bad usage that says what to give; it was "invalid trace
// data: ..." with exit 1.
func TestAVersionFlagThatIsNoHashIsBadUsage(t *testing.T) {
	dir, agents, db, _ := runFixture(t)
	for _, args := range [][]string{
		{"history", "coord", "--restore", "HEAD"},
		{"eval", filepath.Join(dir, "none.yaml"), "--against", "main"},
		{"run", "--replay", "abc", "--version", "coord=HEAD~1"},
		{"history", "coord", "--restore", "abc"},
	} {
		s, _, errOut := testSession("AGENTRY_AGENTS=" + agents)
		code := s.main(context.Background(), append(args, "--db", db))
		first, _, _ := strings.Cut(errOut.String(), "\n")
		if code != 2 || !strings.Contains(first, "want a version's hash, or its first 4 or more hexadecimal characters") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
		if exists(db) {
			t.Fatalf("%v opened the trace database", args)
		}
	}
}
