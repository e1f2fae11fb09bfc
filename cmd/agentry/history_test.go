package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
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
	if code, got, errOut := runEval(t, env, "research", "--json", "--against", list[0].Hash[:8]); code != 0 || got.Failed != 0 || got.Version != list[0].Hash {
		t.Fatalf("eval --against the first version: exit %d, %+v, stderr %q", code, got, errOut)
	} else {
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
