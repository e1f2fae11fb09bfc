package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentry/agentry/trace/approval"
	"github.com/agentry/agentry/trace/postgres"
	"github.com/agentry/agentry/trace/postgres/pgtest"
)

// Two serve processes on one PostgreSQL database both follow a CLI run
// live, through the timeline's event stream (SpansSince), to its end; and
// both see a CLI run killed with SIGKILL end as interrupted, reaped through
// its advisory lock. The database comes in AGENTRY_DB, as a deployment
// would set it.
func TestTwoServesOnOnePostgresFollowCLIRunsLive(t *testing.T) {
	url := pgtest.URL(t)
	bin := buildTraceTestBinary(t)
	dir, agents, _, _ := runFixture(t)
	env := append(os.Environ(), "AGENTRY_WORKSPACE="+dir, "AGENTRY_DB="+url)
	serves := []string{
		startServeProcess(t, bin, env, "--agents", agents, "--addr", "127.0.0.1:0"),
		startServeProcess(t, bin, env, "--agents", agents, "--addr", "127.0.0.1:0"),
	}

	t.Run("a run that finishes", func(t *testing.T) {
		script := writeFile(t, dir, "live.yaml", "coord:\n  - calls: [{tool: delegate, args: {agent: leaf, task: sub}}]\n  - say: all done\nleaf:\n  - {latency: 2s, say: leaf answer}\n")
		run := startCLIRun(t, bin, env, agents, script)
		id := waitForRunningRunID(t, url)
		streams := followOnEach(t, serves, id)
		if err := run.Wait(); err != nil {
			t.Fatalf("agentry run: %v", err)
		}
		for i, evs := range streams() {
			// The stream carries the axis ("N spans · M not ok") and a layout
			// version; the page fetches its window of rows when it changes.
			axes := eventsNamed(evs, "rows")
			if len(axes) < 2 || spanCount(t, axes[0]) >= spanCount(t, axes[len(axes)-1]) {
				t.Errorf("serve %d sent %d states, the first %q; want the run seen while spans were still arriving, then changes", i, len(axes), first(axes))
			}
			if end := evs[len(evs)-1]; end.name != "end" || end.data != "ok" {
				t.Errorf("serve %d: stream ended with %+v, want end ok", i, end)
			}
			resp, err := http.Get(serves[i] + "/runs/" + id + "/rows")
			if err != nil {
				t.Fatal(err)
			}
			last, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if strings.Count(string(last), `data-status="ok"`) < 4 || strings.Contains(string(last), `data-status="running"`) {
				t.Errorf("serve %d: rows do not show the finished run: %s", i, last)
			}
		}
	})

	t.Run("a run whose process is killed", func(t *testing.T) {
		script := writeFile(t, dir, "stuck.yaml", "coord:\n  - calls: [{tool: delegate, args: {agent: leaf, task: sub}}]\n  - say: never\nleaf:\n  - {latency: 1h, say: too late}\n")
		run := startCLIRun(t, bin, env, agents, script)
		id := waitForRunningRunID(t, url)
		streams := followOnEach(t, serves, id)
		run.Process.Signal(syscall.SIGKILL)
		run.Wait()
		for i, evs := range streams() {
			if end := evs[len(evs)-1]; end.name != "end" || end.data != "interrupted" {
				t.Errorf("serve %d: stream ended with %+v, want end interrupted", i, end)
			}
		}
	})
}

func startCLIRun(t *testing.T, bin string, env []string, agents, script string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "run", "coord", "go", "--agents", agents, "--model", "script:"+script)
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd
}

// followOnEach opens the run's event stream on every serve and returns a
// function that waits for each to end and returns their events.
func followOnEach(t *testing.T, serves []string, id string) func() [][]sseEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // bounds a stuck stream only
	t.Cleanup(cancel)
	out := make([][]sseEvent, len(serves))
	var wg sync.WaitGroup
	for i, base := range serves {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/runs/"+id+"/events", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("serve %d: events of %s: %s", i, id, resp.Status)
		}
		wg.Go(func() {
			defer resp.Body.Close()
			out[i] = readSSE(resp.Body)
		})
	}
	return func() [][]sseEvent {
		wg.Wait()
		for i, evs := range out {
			if len(evs) == 0 {
				t.Fatalf("serve %d sent no events", i)
			}
		}
		return out
	}
}

type sseEvent struct{ name, data string }

// readSSE reads a Server-Sent Events stream until it ends.
func readSSE(body interface{ Read([]byte) (int, error) }) []sseEvent {
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.name != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data += strings.TrimPrefix(line, "data: ")
		}
	}
	return out
}

func eventsNamed(evs []sseEvent, name string) []string {
	var out []string
	for _, ev := range evs {
		if ev.name == name {
			out = append(out, ev.data)
		}
	}
	return out
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

var spansInAxis = regexp.MustCompile(`(\d+) spans? ·`)

// spanCount reads "N spans" off a live update's axis.
func spanCount(t *testing.T, axis string) int {
	t.Helper()
	m := spansInAxis.FindStringSubmatch(axis)
	if m == nil {
		t.Fatalf("no span count in %q", axis)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// run --continue works on PostgreSQL as on SQLite: the follow-up runs in
// the first run's conversation with both runs' root messages, which a
// serve instance on the same database reads to continue it again.
func TestAFollowUpRunsInItsConversationOnPostgres(t *testing.T) {
	url := pgtest.URL(t)
	dir, agents, _, sc := runFixture(t)
	first := runJSON(t, dir, "coord", "do it", "--agents", agents, "--db", url, "--model", "script:"+sc)
	next := runJSON(t, dir, "--continue", first.RunID, "and then?", "--agents", agents, "--db", url, "--model", "script:"+sc)
	if next.RunID == first.RunID || next.Conversation != first.RunID || next.Status != "ok" {
		t.Fatalf("follow-up = %+v, want a new run in %s's conversation", next, first.RunID)
	}
	store, err := postgres.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	msgs, err := store.ConversationMessages(t.Context(), first.RunID)
	if err != nil || len(msgs) != 8 || msgs[0].Content != "do it" || msgs[4].Content != "and then?" || msgs[7].Content != "all done" {
		t.Fatalf("conversation messages = %+v, %v; want both runs' root messages", msgs, err)
	}
	if ids, err := store.ConversationIDs(t.Context(), []string{first.RunID, next.RunID}); err != nil || ids[next.RunID] != first.RunID {
		t.Errorf("ConversationIDs = %v, %v", ids, err)
	}
}

// A run on PostgreSQL waits for its asks to be answered by another
// process on the database (`agentry approvals`), as it does on SQLite.
func TestARunOnPostgresWaitsForAnAnswerFromElsewhere(t *testing.T) {
	url := pgtest.URL(t)
	dir, agents, _, sc := askFixture(t)
	s, _, _ := testSession("AGENTRY_WORKSPACE=" + dir)
	var out, errOut syncBuffer
	s.stdout, s.stderr = &out, &errOut
	done := make(chan int, 1)
	go func() {
		done <- s.main(context.Background(), []string{"run", "writer", "go", "--agents", agents, "--db", url, "--model", "script:" + sc})
	}()
	store, err := postgres.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var id string
	for deadline := time.Now().Add(20 * time.Second); id == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if list, _ := store.Approvals(t.Context(), approval.Filter{Status: approval.Pending}); len(list) > 0 {
			id = list[0].ID
		}
	}
	if id == "" {
		t.Fatalf("no pending approval; stderr:\n%s", errOut.String())
	}
	a, aOut, aErr := testSession("USER=lee")
	if code := a.main(context.Background(), []string{"approvals", "approve", id, "--for-run", "--db", url}); code != 0 {
		t.Fatalf("approve: exit %d %s %s", code, aOut, aErr)
	}
	select {
	case code := <-done:
		if code != 0 || !exists(filepath.Join(dir, "b.txt")) {
			t.Fatalf("run exit %d, b.txt %v\n%s", code, exists(filepath.Join(dir, "b.txt")), errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the run did not end after its call was approved for the run")
	}
	if got, err := store.Approval(t.Context(), id); err != nil || got.DecidedBy != "cli:lee" || !got.ForRun {
		t.Errorf("approval = %+v, %v", got, err)
	}
}
