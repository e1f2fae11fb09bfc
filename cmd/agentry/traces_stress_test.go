//go:build stress

package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry/agentry/trace/sqlite"
)

// Figures of TestStressParallelRunsLoseNoSpans: like the load that lost
// traces (issue 12: 20–30 processes, ~7,500 spans each, a loaded machine).
// Before the fix, on 2 CPUs, this load had a run exit 0 with 274 of its
// 7,262 spans stored, and 20 processes had a first open fail.
const (
	traceStressProcs  = 30
	traceStressRounds = 2   // each on a new database, so first opens race too
	traceStressTurns  = 60  // model turns with tool calls per run
	traceStressCalls  = 120 // tool calls per turn
)

// traceStressSpansPerRun is what one run of the script writes: its invoke_agent
// span, one chat span per turn (the final answer included) and one
// execute_tool span per call.
const traceStressSpansPerRun = 1 + (traceStressTurns + 1) + traceStressTurns*traceStressCalls

// TestStressParallelRunsLoseNoSpans runs many `agentry run` processes at
// once on one database while the machine is kept busy, and counts every
// span the script makes them write against what the database holds. A
// process may fail only by saying that its trace is incomplete, with a
// non-zero exit; it may never exit 0 with spans missing.
func TestStressParallelRunsLoseNoSpans(t *testing.T) {
	bin := buildTraceTestBinary(t)
	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "worker.md", fmt.Sprintf("---\nname: worker\ndescription: Reads a note many times\nmax_turns: %d\n"+
		"tools:\n  allow: [filesystem.read_file]\n---\nYou read.\n", traceStressTurns+5))
	writeFile(t, dir, "note.txt", "Q4 revenue grew 12% on the year.\n")
	script := writeFile(t, dir, "script.yaml", traceStressScript())

	stopBurn := burnCPUWhileTracing()
	defer stopBurn()
	var written, readBack, reported, failed int
	start := time.Now()
	for round := range traceStressRounds {
		db := filepath.Join(dir, fmt.Sprintf("round-%d.db", round))
		results := runAgentryInParallel(t, bin, dir, agents, db, script)
		store, err := sqlite.Open(db)
		if err != nil {
			t.Fatalf("round %d: open for reading: %v", round, err)
		}
		for i, r := range results {
			switch {
			case r.code == 0:
				written += traceStressSpansPerRun
				spans, err := store.Spans(context.Background(), r.runID)
				if err != nil {
					t.Errorf("round %d process %d: read back: %v", round, i, err)
				}
				readBack += len(spans)
				if len(spans) != traceStressSpansPerRun {
					t.Errorf("round %d process %d exited 0 with %d of %d spans stored (run %s)\nstderr: %s",
						round, i, len(spans), traceStressSpansPerRun, r.runID, r.stderr)
				}
			case strings.Contains(r.stderr, "trace incomplete"):
				reported++
			default:
				failed++
				t.Errorf("round %d process %d: exit %d without reporting a trace loss\nstdout: %s\nstderr: %s",
					round, i, r.code, r.stdout, r.stderr)
			}
		}
		store.Close()
	}
	t.Logf("%d rounds × %d processes on %d CPUs under a CPU burner in %s: spans written by runs that exited 0 %d, read back %d; "+
		"runs that reported an incomplete trace %d; other failures %d",
		traceStressRounds, traceStressProcs, runtime.NumCPU(), time.Since(start).Round(time.Millisecond), written, readBack, reported, failed)
	if written != readBack {
		t.Errorf("spans written %d, read back %d", written, readBack)
	}
}

// traceStressScript plays traceStressTurns turns of traceStressCalls file reads, then answers.
func traceStressScript() string {
	var b strings.Builder
	b.WriteString("worker:\n")
	for range traceStressTurns {
		b.WriteString("  - calls:\n")
		for range traceStressCalls {
			b.WriteString("      - {tool: filesystem.read_file, args: {path: note.txt}}\n")
		}
	}
	b.WriteString("  - say: done\n")
	return b.String()
}

type traceStressResult struct {
	code           int
	runID          string
	stdout, stderr string
}

// runAgentryInParallel starts traceStressProcs `agentry run --json` processes together
// and waits for all of them.
func runAgentryInParallel(t *testing.T, bin, dir, agents, db, script string) []traceStressResult {
	t.Helper()
	results := make([]traceStressResult, traceStressProcs)
	ready := make(chan struct{})
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			cmd := exec.Command(bin, "run", "worker", "read the note", "--agents", agents, "--db", db,
				"--model", "script:"+script, "--json")
			cmd.Dir = dir
			// 7,200 tool calls in a few seconds, with the defaults: the
			// conversation window is an orchestrator conversation's only.
			cmd.Env = append(os.Environ(), "AGENTRY_WORKSPACE="+dir)
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			<-ready
			err := cmd.Run()
			r := traceStressResult{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errOut.String()}
			if err != nil && cmd.ProcessState == nil {
				r.code, r.stderr = -1, err.Error()
			}
			var res struct {
				RunID string `json:"run_id"`
			}
			if json.Unmarshal(out.Bytes(), &res) == nil {
				r.runID = res.RunID
			}
			results[i] = r
		})
	}
	close(ready)
	wg.Wait()
	return results
}

// burnCPUWhileTracing keeps every CPU busy until stopped: traces were lost only on a
// loaded machine, where writers hold the lock longer and wait unfairly.
func burnCPUWhileTracing() (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Go(func() {
			x := uint64(1)
			for !done.Load() {
				for range 1 << 16 {
					x = x*6364136223846793005 + 1442695040888963407
				}
			}
			_ = x
		})
	}
	return func() { done.Store(true); wg.Wait() }
}

// TestStressRunReportsATraceItCouldNotWrite holds the database's write lock
// from outside while a run ends, longer than the store retries, and wants
// the run to say its trace is incomplete and exit non-zero.
func TestStressRunReportsATraceItCouldNotWrite(t *testing.T) {
	f := newSlowRun(t)
	stdout, stderr, err := f.endLockedOut(t, f.command("run", "slow", "ponder"))
	if err == nil || !strings.Contains(stderr, "trace incomplete") {
		t.Fatalf("run with its final write locked out: %v\nstdout: %s\nstderr: %s", err, stdout, stderr)
	}
	t.Logf("%v, stderr: %s", err, stderr)
}

// TestStressAFollowUpReportsATraceItCouldNotWrite is the same for a
// follow-up run (run --continue RUN_ID TASK, as chat's runs): its
// conversation's recorder closing short says so and exits non-zero.
func TestStressAFollowUpReportsATraceItCouldNotWrite(t *testing.T) {
	f := newSlowRun(t)
	out, err := f.command("run", "slow", "ponder").Output()
	var res struct {
		RunID string `json:"run_id"`
	}
	if err != nil || json.Unmarshal(out, &res) != nil {
		t.Fatalf("first run: %v\n%s", err, out)
	}
	stdout, stderr, err := f.endLockedOut(t, f.command("run", "--continue", res.RunID, "and then?"))
	if err == nil || !strings.Contains(stderr, "trace incomplete") {
		t.Fatalf("follow-up with its final write locked out: %v\nstdout: %s\nstderr: %s", err, stdout, stderr)
	}
}

// slowRun is a folder with one agent whose answer takes 3 s, long enough
// to lock its trace database before the run ends.
type slowRun struct{ bin, dir, agents, script, db string }

func newSlowRun(t *testing.T) slowRun {
	dir := t.TempDir()
	f := slowRun{bin: buildTraceTestBinary(t), dir: dir, agents: filepath.Join(dir, "agents"), db: filepath.Join(dir, "traces.db")}
	writeFile(t, f.agents, "slow.md", "---\nname: slow\ndescription: Thinks a while\n---\nYou think.\n")
	f.script = writeFile(t, dir, "script.yaml", "slow:\n  - {latency: 3s, say: done}\n")
	return f
}

// command is agentry with args on the folder's agents, database and script.
func (f slowRun) command(args ...string) *exec.Cmd {
	cmd := exec.Command(f.bin, append(args, "--agents", f.agents, "--db", f.db, "--model", "script:"+f.script, "--json")...)
	cmd.Env = append(os.Environ(), "AGENTRY_WORKSPACE="+f.dir)
	return cmd
}

// endLockedOut runs cmd and holds the database's write lock from once its
// run is going until the command has exited.
func (f slowRun) endLockedOut(t *testing.T, cmd *exec.Cmd) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitForRunningRunID(t, f.db)
	lock := holdTraceDBWriteLock(t, f.db)
	err = cmd.Wait()
	lock.Rollback()
	return out.String(), errOut.String(), err
}

// holdTraceDBWriteLock takes the write lock of db from another connection and keeps it
// until the returned transaction ends.
func holdTraceDBWriteLock(t *testing.T, db string) *sql.Tx {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(10000)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	tx, err := conn.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("UPDATE counters SET value = value WHERE name = 'span_seq'"); err != nil {
		t.Fatal(err)
	}
	return tx
}
