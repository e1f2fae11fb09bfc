package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/postgres/pgtest"
	"github.com/agentry/agentry/trace/semconv"
	"github.com/agentry/agentry/trace/sqlite"
)

var tracesT0 = time.Date(2026, 11, 3, 14, 5, 9, 123456000, time.UTC)

// tracesFixture writes two runs: an older finished delegation tree and a
// newer run still going.
func tracesFixture(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "traces.db")
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ms := func(n int) time.Time { return tracesT0.Add(time.Duration(n) * time.Millisecond) }
	runs := []trace.Run{
		{ID: "aaaa0000aaaa0000aaaa0000aaaa0000", Agent: "coord", Task: "Q4 trends", Status: trace.StatusOK,
			StartedAt: ms(0), EndedAt: ms(1500), Result: "Q4 up 12%", InputTokens: 150, OutputTokens: 28},
		{ID: "bbbb0000bbbb0000bbbb0000bbbb0000", Agent: "leaf", Task: "still going", Status: trace.StatusRunning, StartedAt: ms(60_000)},
	}
	spans := []trace.Span{
		{ID: "root", RunID: runs[0].ID, Kind: trace.KindInvokeAgent, Name: "invoke_agent coord", Agent: "coord",
			Status: trace.StatusOK, StartedAt: ms(0), EndedAt: ms(1500), Attributes: map[string]any{semconv.AttrTask: "Q4 trends"}},
		{ID: "chat1", RunID: runs[0].ID, ParentID: "root", Kind: trace.KindChat, Name: "chat demo", Agent: "coord",
			Status: trace.StatusOK, StartedAt: ms(5), EndedAt: ms(105), InputTokens: 100, OutputTokens: 20},
		{ID: "deleg", RunID: runs[0].ID, ParentID: "root", Kind: trace.KindExecuteTool, Name: "execute_tool delegate", Agent: "coord",
			Status: trace.StatusOK, StartedAt: ms(110), EndedAt: ms(1400), Attributes: map[string]any{
				semconv.AttrTargetAgent: "leaf", semconv.AttrContextMode: "task_only", semconv.AttrDelegationStatus: "ok"}},
		{ID: "child", RunID: runs[0].ID, ParentID: "deleg", Kind: trace.KindInvokeAgent, Name: "invoke_agent leaf", Agent: "leaf",
			Depth: 1, Status: trace.StatusOK, StartedAt: ms(120), EndedAt: ms(1390)},
		{ID: "chat2", RunID: runs[0].ID, ParentID: "child", Kind: trace.KindChat, Name: "chat demo", Agent: "leaf",
			Depth: 1, Status: trace.StatusError, StartedAt: ms(130), EndedAt: ms(300), Error: "rate limited"},
	}
	if err := store.Apply(context.Background(), runs, spans); err != nil {
		t.Fatal(err)
	}
	return db
}

func traces(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	s, out, errOut := testSession()
	code := s.main(context.Background(), append([]string{"traces"}, args...))
	return code, out.String(), errOut.String()
}

func TestTracesListJSONIsNewestFirstWithContractFields(t *testing.T) {
	db := tracesFixture(t)
	code, out, errOut := traces(t, "list", "--json", "--db", db)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var runs []map[string]any
	if err := json.Unmarshal([]byte(out), &runs); err != nil {
		t.Fatalf("not a JSON array: %s", out)
	}
	if len(runs) != 2 || runs[0]["id"] != "bbbb0000bbbb0000bbbb0000bbbb0000" {
		t.Fatalf("runs %v, want the running one first", runs)
	}
	for _, k := range []string{"id", "agent", "task", "status", "started_at", "ended_at"} {
		if _, ok := runs[1][k]; !ok {
			t.Errorf("run lacks %q: %v", k, runs[1])
		}
	}
	if runs[0]["ended_at"] != nil || runs[1]["started_at"] != "2026-11-03T14:05:09.123456Z" {
		t.Errorf("times: running ended_at %v, started_at %v", runs[0]["ended_at"], runs[1]["started_at"])
	}
}

func TestTracesListTableAndFilters(t *testing.T) {
	db := tracesFixture(t)
	cases := []struct {
		name string
		args []string
		want []string // run IDs in order
	}{
		{"no subcommand lists every run", []string{"--db", db}, []string{"bbbb", "aaaa"}},
		{"agent keeps that agent's runs", []string{"list", "--agent", "coord", "--db", db}, []string{"aaaa"}},
		{"status keeps runs with that status", []string{"list", "--db", db, "--status", "running"}, []string{"bbbb"}},
		{"text searches tasks and results", []string{"list", "--db", db, "--text", "12%"}, []string{"aaaa"}},
	}
	for _, c := range cases {
		code, out, errOut := traces(t, c.args...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", c.name, code, errOut)
			continue
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if !strings.HasPrefix(lines[0], "ID ") || len(lines) != len(c.want)+1 {
			t.Errorf("%s: table\n%s", c.name, out)
			continue
		}
		for i, id := range c.want {
			if !strings.HasPrefix(lines[i+1], id) {
				t.Errorf("%s: row %d is %q, want run %s…", c.name, i, lines[i+1], id)
			}
		}
	}
}

func TestTracesShowJSONIsTheDocument(t *testing.T) {
	db := tracesFixture(t)
	code, out, errOut := traces(t, "show", "aaaa0000aaaa0000aaaa0000aaaa0000", "--json", "--db", db)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Run   map[string]any   `json:"run"`
		Spans []map[string]any `json:"spans"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not a document: %s", out)
	}
	if doc.Run["result"] != "Q4 up 12%" || len(doc.Spans) != 5 {
		t.Fatalf("document run %v with %d spans", doc.Run, len(doc.Spans))
	}
	deleg := doc.Spans[2]
	attrs, _ := deleg["attributes"].(map[string]any)
	if deleg["kind"] != "execute_tool" || attrs["target_agent"] != "leaf" || attrs["context_mode"] != "task_only" || attrs["delegation_status"] != "ok" {
		t.Errorf("delegation span %v", deleg)
	}
	for _, k := range []string{"id", "parent_id", "kind", "name", "agent", "depth", "status", "started_at", "ended_at", "input_tokens", "output_tokens", "error", "attributes"} {
		if _, ok := doc.Spans[0][k]; !ok {
			t.Errorf("span lacks %q", k)
		}
	}
}

func TestTracesShowPrintsATreeWithDurationsAndRollup(t *testing.T) {
	db := tracesFixture(t)
	code, out, errOut := traces(t, "show", "aaaa0000aaaa0000aaaa0000aaaa0000", "--db", db)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^run aaaa0000aaaa0000aaaa0000aaaa0000  ok  1\.5s$`),
		regexp.MustCompile(`(?m)^invoke_agent coord  \[ok\]  1\.5s  task: Q4 trends$`),
		regexp.MustCompile(`(?m)^  chat demo  \[ok\]  100ms  tokens 100/20$`),
		regexp.MustCompile(`(?m)^  execute_tool delegate  \[ok\]  1\.29s  → leaf \(context task_only\)$`),
		regexp.MustCompile(`(?m)^    invoke_agent leaf  \[ok\]  1\.27s$`),
		regexp.MustCompile(`(?m)^      chat demo  \[error\]  170ms  error: rate limited$`),
		regexp.MustCompile(`(?m)^leaf +1 +1\.27s +1 +0 +0 +0 +1$`),
	} {
		if !want.MatchString(out) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
}

// A run exported from SQLite imports into either store under its own ID
// and exports from there byte for byte; imported again, it gets a new ID.
func TestTracesExportThenImportRoundTrips(t *testing.T) {
	db := tracesFixture(t)
	const id = "aaaa0000aaaa0000aaaa0000aaaa0000"
	code, exported, errOut := traces(t, "export", id, "--db", db)
	if code != 0 {
		t.Fatalf("export exit %d: %s", code, errOut)
	}
	file := filepath.Join(t.TempDir(), "run.json")
	if err := os.WriteFile(file, []byte(exported), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, into := range []struct {
		name string
		db   func(t *testing.T) string
	}{
		{"into SQLite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "other.db") }},
		{"into PostgreSQL", func(t *testing.T) string { return pgtest.URL(t) }},
	} {
		t.Run(into.name, func(t *testing.T) {
			other := into.db(t)
			if code, out, errOut := traces(t, "import", file, "--db", other); code != 0 || strings.TrimSpace(out) != id {
				t.Fatalf("import into a new db: exit %d, printed %q, stderr %s; want the same id", code, out, errOut)
			}
			if _, again, _ := traces(t, "export", id, "--db", other); again != exported {
				t.Errorf("re-export differs:\n%s\nwant\n%s", again, exported)
			}
			code, out, _ := traces(t, "import", file, "--db", other)
			newID := strings.TrimSpace(out)
			if code != 0 || newID == id || len(newID) != 32 {
				t.Fatalf("import over a taken id: exit %d, id %q", code, newID)
			}
			if code, _, errOut := traces(t, "show", newID, "--db", other); code != 0 {
				t.Errorf("show imported copy: exit %d: %s", code, errOut)
			}
		})
	}
}

func TestTracesReportsBadInputWithExitCodes(t *testing.T) {
	db := tracesFixture(t)
	garbage := writeFile(t, t.TempDir(), "garbage.json", "{not json")
	orphan := writeFile(t, t.TempDir(), "orphan.json", `{"run":{"id":"r","status":"ok"},"spans":[{"id":"s","parent_id":"ghost","kind":"chat","status":"ok"}]}`)
	loop := writeFile(t, t.TempDir(), "loop.json", `{"run":{"id":"r","status":"ok"},"spans":[{"id":"s","parent_id":"s","kind":"chat","status":"ok"}]}`)
	badKind := writeFile(t, t.TempDir(), "kind.json", `{"run":{"id":"r","status":"ok"},"spans":[{"id":"s","kind":"llm","status":"ok"}]}`)
	oddID := writeFile(t, t.TempDir(), "odd.json", `{"run":{"id":"../../etc/x","status":"ok"},"spans":[]}`)
	noRun := writeFile(t, t.TempDir(), "norun.json", `{"x":1}`)
	missing := filepath.Join(t.TempDir(), "none.db")
	cases := []struct {
		name     string
		args     []string
		code     int
		inStderr string
	}{
		{"an unknown run is not found", []string{"show", "nope", "--db", db}, 1, "agentry: run \"nope\": not found\n"},
		{"export of an unknown run is not found", []string{"export", "nope", "--db", db}, 1, "agentry: run \"nope\": not found\n"},
		{"an unknown status is a usage error that lists the known ones", []string{"list", "--status", "bogus", "--db", db}, 2,
			`unknown status "bogus" (running, ok, error, timeout, cancelled, denied, skipped, interrupted, limit)`},
		{"an unknown subcommand is a usage error", []string{"frobnicate", "--db", db}, 2, "unknown subcommand"},
		{"show without a run id is a usage error", []string{"show", "--db", db}, 2, "traces show needs exactly one RUN_ID"},
		{"a misspelt subcommand gets a suggestion", []string{"lsit", "--db", db}, 2, `unknown subcommand "lsit"; did you mean list?`},
		{"a limit below one is a usage error", []string{"list", "--limit", "-1", "--db", db}, 2, "--limit must be from 1 to 1000, got -1"},
		{"a limit above the store's page is a usage error", []string{"list", "--limit", "5000", "--db", db}, 2, "--limit must be from 1 to 1000, got 5000"},
		{"list takes no operands", []string{"list", "x", "--db", db}, 2, `traces list takes no arguments, got "x"`},
		{"importing a file that is not JSON fails", []string{"import", garbage, "--db", db}, 1, "not a trace document"},
		{"importing an incoherent document fails", []string{"import", orphan, "--db", db}, 1, "unknown parent"},
		{"importing a document without a run says so once", []string{"import", noRun, "--db", db}, 1,
			"agentry: import " + noRun + ": invalid trace data: run has no id\n"},
		{"importing a span that is its own parent fails", []string{"import", loop, "--db", db}, 1, `span "s" is its own parent`},
		{"importing a span of an unknown kind fails", []string{"import", badKind, "--db", db}, 1, `kind "llm"`},
		{"importing a run id with odd characters fails", []string{"import", oddID, "--db", db}, 1, `id "../../etc/x" has '.' at position 1`},
		{"a missing database has no runs to show", []string{"show", "x", "--db", missing}, 1, "no trace database"},
		{"a file that is no document is not imported into a new database", []string{"import", garbage, "--db", missing}, 1, "not a trace document"},
	}
	for _, c := range cases {
		code, _, errOut := traces(t, c.args...)
		if code != c.code || !strings.Contains(errOut, c.inStderr) {
			t.Errorf("%s: exit %d stderr %q; want %d and %q", c.name, code, errOut, c.code, c.inStderr)
		}
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Error("a read created the database file")
	}
}

func TestTracesListWithoutADatabaseIsEmpty(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.db")
	code, out, _ := traces(t, "list", "--json", "--db", missing)
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("exit %d, printed %q; want 0 and []", code, out)
	}
}

// traces delete is the trace database's retention: a finished run goes
// with its spans, a run still going stays (its spans would keep arriving),
// and an unknown one is named; --older-than deletes every finished run
// started before then.
func TestTracesDeleteRemovesFinishedRunsOnly(t *testing.T) {
	const done, going = "aaaa0000aaaa0000aaaa0000aaaa0000", "bbbb0000bbbb0000bbbb0000bbbb0000"
	db := tracesFixture(t)
	code, out, errOut := traces(t, "delete", going, "nope", "--db", db)
	if code != 1 || out != "" || !strings.Contains(errOut, "run "+going+" is still running: cancel it first") || !strings.Contains(errOut, `run "nope": not found`) {
		t.Fatalf("deleting a running and an unknown run: exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	code, out, errOut = traces(t, "delete", "--older-than", "1h", "--json", "--db", db)
	var got struct{ Deleted []string }
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil || len(got.Deleted) != 1 || got.Deleted[0] != done {
		t.Fatalf("--older-than 1h: exit %d\nstdout %q\nstderr %q; want only %s deleted", code, out, errOut, done)
	}
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := store.Run(context.Background(), done); !errors.Is(err, trace.ErrNotFound) {
		t.Errorf("the deleted run reads back: %v", err)
	}
	if spans, _ := store.Spans(context.Background(), done); len(spans) != 0 {
		t.Errorf("the deleted run kept %d spans", len(spans))
	}
	if r, err := store.Run(context.Background(), going); err != nil || r.Status != trace.StatusRunning {
		t.Errorf("the running run = %+v, %v; want it kept", r, err)
	}
	for _, bad := range [][]string{{"delete"}, {"delete", done, "--older-than", "1h"}, {"delete", "--older-than", "-1h"}} {
		if code, _, errOut := traces(t, append(bad, "--db", db)...); code != 2 || !strings.Contains(errOut, "traces delete") {
			t.Errorf("%q: exit %d, %q; want a usage error", bad, code, errOut)
		}
	}
}
