package approvals_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/semconv"
	"github.com/agentry/agentry/trace/sqlite"

	"github.com/agentry/agentry/web"

	"github.com/agentry/agentry/web/internal/webtest"
)

// buildAgentry builds the agentry binary of this tree into the test's temp
// folder, for a run in a process of its own.
func buildAgentry(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "agentry")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/agentry").CombinedOutput(); err != nil {
		t.Fatalf("build agentry: %v\n%s", err, out)
	}
	return bin
}

// TestTheWebApprovesACLIRunInAnotherProcess starts `agentry run` as its own
// process on a database this server also reads; the run's write waits for
// approval, and a person approves it for the run from the run page.
func TestTheWebApprovesACLIRunInAnotherProcess(t *testing.T) {
	bin := buildAgentry(t)
	dir := t.TempDir()
	agents, work := filepath.Join(dir, "agents"), filepath.Join(dir, "work")
	for _, d := range []string{agents, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(agents, "writer.md"), "---\nname: writer\ndescription: Writes\ntools:\n  ask: [filesystem.write_file]\n---\nYou write.\n")
	write(filepath.Join(dir, "script.yaml"), `writer:
  - calls: [{tool: filesystem.write_file, args: {path: report.md, content: "# Q4"}}]
  - calls: [{tool: filesystem.write_file, args: {path: notes.md, content: "notes"}}]
  - say: written
`)
	db := filepath.Join(dir, "trace.db")
	cmd := exec.Command(bin, "run", "writer", "write the report", "--agents", agents, "--db", db, "--model", "script:"+filepath.Join(dir, "script.yaml"))
	cmd.Env = append(os.Environ(), "AGENTRY_WORKSPACE="+work)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var waitErr error
	done := make(chan struct{})
	go func() { waitErr = cmd.Wait(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })

	pending := waitPending(t, db)
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	srv := webtest.StartBrowserServer(t, nil, func(c *web.Config) { c.Runs, c.Approvals = store, store })
	ctx := webtest.NewBrowser(t)
	webtest.Run(t, ctx, chromedp.Navigate(srv.URL+"/runs/"+pending.RunID))
	webtest.WaitText(t, ctx, "run-approvals", "Waiting for approval")
	webtest.WaitText(t, ctx, "approval-args", "report.md")
	webtest.WaitText(t, ctx, "approval-reason", `ask pattern "filesystem.write_file"`)
	webtest.WaitText(t, ctx, "nav-badge-approvals", "1")
	webtest.Screenshot(t, ctx, "approval-run-page")
	webtest.Run(t, ctx, chromedp.Click(webtest.TID("approve-run")))

	select {
	case <-done:
		if waitErr != nil {
			t.Fatalf("agentry run: %v\n%s\n%s", waitErr, stdout.String(), stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the run did not end after the web approved it\n%s", stderr.String())
	}
	for _, f := range []string{"report.md", "notes.md"} {
		if _, err := os.Stat(filepath.Join(work, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	got, err := store.Approval(context.Background(), pending.ID)
	if err != nil || got.Status != approval.Approved || got.DecidedBy != "web" || !got.ForRun {
		t.Errorf("approval = %+v, %v", got, err)
	}
	// The decision is on the span, and the timeline's detail shows it.
	webtest.Run(t, ctx, chromedp.Navigate(srv.URL+"/runs/"+pending.RunID))
	webtest.WaitText(t, ctx, "run-status", "ok")
	spans, _ := store.Spans(context.Background(), pending.RunID)
	decided := 0
	for _, sp := range spans {
		for _, ev := range sp.Events {
			if ev.Name == semconv.EventApproval && ev.Attributes[semconv.EventAttrDecidedBy] == "web" {
				decided++
			}
		}
	}
	if decided != 2 {
		t.Errorf("%d approval events decided by web, want 2 (the answer, and the second call under it)", decided)
	}
	if strings.Contains(stderr.String(), "panic") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// waitPending waits for the CLI run's first pending approval.
func waitPending(t *testing.T, db string) approval.Approval {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(db); err == nil {
			if s, err := sqlite.Open(db); err == nil {
				list, _ := s.Approvals(context.Background(), approval.Filter{Status: approval.Pending})
				s.Close()
				if len(list) > 0 {
					return list[0]
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the CLI run never asked for approval")
	return approval.Approval{}
}
