package sqlite_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/sqlite"
)

// The crash child's environment: the database to write, and "0" in
// crashChildFlushEnv to leave writing to the Recorder's own schedule.
const (
	crashChildEnv      = "AGENTRY_TRACE_CRASH_CHILD_DB"
	crashChildFlushEnv = "AGENTRY_TRACE_CRASH_CHILD_FLUSH"
)

// crashChild plays a process that records part of a run and then hangs
// until killed: one finished span, two still open. With flush it writes
// them before it says "ready"; without, it says "recorded" as soon as the
// Recorder holds them and leaves the writing to the Recorder's interval, as
// a real run does.
func crashChild(path string, flush bool) {
	s, err := sqlite.Open(path)
	if err != nil {
		panic(err)
	}
	rec := trace.NewRecorder(s, trace.RecorderConfig{})
	rec.RecordRun(trace.Run{ID: "crashed", Agent: "coordinator", Task: "never ends", Status: trace.StatusRunning, StartedAt: tracetestBase})
	rec.RecordSpan(trace.Span{ID: "root", RunID: "crashed", Kind: trace.KindInvokeAgent, Agent: "coordinator", Status: trace.StatusRunning, StartedAt: tracetestBase})
	rec.RecordSpan(trace.Span{ID: "chat", RunID: "crashed", ParentID: "root", Kind: trace.KindChat, Agent: "coordinator",
		Status: trace.StatusOK, StartedAt: tracetestBase.Add(time.Millisecond), EndedAt: tracetestBase.Add(40 * time.Millisecond), InputTokens: 10})
	rec.RecordSpan(trace.Span{ID: "tool", RunID: "crashed", ParentID: "root", Kind: trace.KindExecuteTool, Agent: "coordinator",
		Status: trace.StatusRunning, StartedAt: tracetestBase.Add(50 * time.Millisecond)})
	if !flush {
		os.Stdout.WriteString("recorded\n")
		select {}
	}
	if err := rec.Flush(context.Background()); err != nil {
		panic(err)
	}
	os.Stdout.WriteString("ready\n")
	select {}
}

func TestCrashedRunIsInterruptedAtNextOpen(t *testing.T) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path, os.Getenv(crashChildFlushEnv) != "0")
		return
	}
	path := filepath.Join(t.TempDir(), "traces.db")
	child := startCrashChild(t, path, true)
	// While the writer lives, opening the database must not touch its run.
	assertRunStatus(t, path, trace.StatusRunning)

	killChild(t, child)
	assertCrashedRunInterrupted(t, path)
}

// A crash loses at most what the Recorder has not written yet: spans it
// wrote on its own schedule, with no Flush, survive a SIGKILL and the run
// is interrupted at the next open.
func TestSpansWrittenWithoutFlushSurviveACrash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "traces.db")
	child := startCrashChild(t, path, false)
	waitForSpans(t, path, "crashed", 3)

	killChild(t, child)
	assertCrashedRunInterrupted(t, path)
}

// waitForSpans polls the database until the run exists with n spans, as the
// live timeline would see them; the timeout only bounds a broken writer.
func waitForSpans(t *testing.T, path, runID string, n int) {
	t.Helper()
	s, err := sqlite.Open(path)
	if err != nil {
		t.Fatalf("Open while the writer lives: %v", err)
	}
	defer s.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, runErr := s.Run(t.Context(), runID)
		spans, err := s.Spans(t.Context(), runID)
		if err != nil {
			t.Fatalf("Spans: %v", err)
		}
		if runErr == nil && len(spans) == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30s the writer's database has run error %v and %d spans; want the run and %d spans", runErr, len(spans), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// assertCrashedRunInterrupted opens the database after the crash child was
// killed and checks what crashChild recorded: the run and its open spans
// interrupted at the latest time recorded, the finished span as written.
func assertCrashedRunInterrupted(t *testing.T, path string) {
	t.Helper()
	s, err := sqlite.Open(path)
	if err != nil {
		t.Fatalf("Open after crash: %v", err)
	}
	defer s.Close()
	r, err := s.Run(t.Context(), "crashed")
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	last := tracetestBase.Add(50 * time.Millisecond) // the tool span's start, the latest time recorded
	if r.Status != trace.StatusInterrupted || !r.EndedAt.Equal(last) || r.Error == "" {
		t.Errorf("run = %s ended %v error %q; want interrupted at %v with a reason", r.Status, r.EndedAt, r.Error, last)
	}
	spans, err := s.Spans(t.Context(), "crashed")
	if err != nil {
		t.Fatalf("Spans: %v", err)
	}
	want := map[string]trace.Status{"root": trace.StatusInterrupted, "chat": trace.StatusOK, "tool": trace.StatusInterrupted}
	if len(spans) != len(want) {
		t.Fatalf("got %d spans, want %d", len(spans), len(want))
	}
	for _, sp := range spans {
		if sp.Status != want[sp.ID] || sp.EndedAt.IsZero() {
			t.Errorf("span %s: %s ended %v; want %s with an end", sp.ID, sp.Status, sp.EndedAt, want[sp.ID])
		}
		if sp.Status == trace.StatusInterrupted && !sp.EndedAt.Equal(last) {
			t.Errorf("span %s ended %v, want %v", sp.ID, sp.EndedAt, last)
		}
	}
	if spans[1].ID != "chat" || spans[1].InputTokens != 10 {
		t.Errorf("finished span not kept as written: %+v", spans[1])
	}
}

func TestRunsOfThisProcessSurviveReopen(t *testing.T) {
	s, path := openTemp(t)
	defer s.Close()
	r := trace.Run{ID: "live", Agent: "a", Status: trace.StatusRunning, StartedAt: tracetestBase}
	if err := s.Apply(t.Context(), []trace.Run{r}, nil); err != nil {
		t.Fatal(err)
	}
	assertRunStatus(t, path, trace.StatusRunning)
}

// assertRunStatus opens the database afresh and checks the crashed or live run.
func assertRunStatus(t *testing.T, path string, want trace.Status) {
	t.Helper()
	s, err := sqlite.Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	page, err := s.Runs(t.Context(), trace.RunFilter{})
	if err != nil || len(page.Runs) != 1 {
		t.Fatalf("Runs = %v, %v; want one run", page.Runs, err)
	}
	if got := page.Runs[0].Status; got != want {
		t.Errorf("run status %s, want %s", got, want)
	}
}

func TestMarkInterruptedCatchesRunsOfProcessesKilledSinceOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "traces.db")
	child := startCrashChild(t, path, true)
	s, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n, err := s.MarkInterrupted(t.Context()); n != 0 || err != nil {
		t.Fatalf("with the writer alive: marked %d, %v; want 0", n, err)
	}
	killChild(t, child)
	if n, err := s.MarkInterrupted(t.Context()); n != 1 || err != nil {
		t.Fatalf("after the kill: marked %d, %v; want 1", n, err)
	}
	if r, err := s.Run(t.Context(), "crashed"); err != nil || r.Status != trace.StatusInterrupted {
		t.Errorf("run = %s, %v; want interrupted", r.Status, err)
	}
}

// startCrashChild re-runs this test binary as a writer that records part of
// a run and hangs; it returns once the writer has flushed, or without flush
// once it has recorded (the records may not be written yet).
func startCrashChild(t *testing.T, path string, flush bool) *exec.Cmd {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^TestCrashedRunIsInterruptedAtNextOpen$")
	child.Env = append(os.Environ(), crashChildEnv+"="+path)
	want := "ready"
	if !flush {
		child.Env, want = append(child.Env, crashChildFlushEnv+"=0"), "recorded"
	}
	child.Stderr = os.Stderr
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != want {
		t.Fatalf("child said %q, %v", line, err)
	}
	return child
}

// killChild kills the writer the hard way and reaps it.
func killChild(t *testing.T, child *exec.Cmd) {
	t.Helper()
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()
}
