package collectortest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agentry/agentry/trace"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// agentry builds the real binary once for the package's tests.
func agentry(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "agentry-otlp")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "agentry")
		// Built in agentry's own module, with its go.mod: the binary users get.
		build := exec.Command("go", "build", "-o", binPath, "./cmd/agentry")
		build.Dir = filepath.Join("..", "..", "..")
		out, err := build.CombinedOutput()
		if err != nil {
			buildErr = &buildError{err, string(out)}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "build agentry: " + e.err.Error() + "\n" + e.out }

// fixture is a folder with two agents and a script in which coord delegates
// to leaf, then answers.
type fixture struct{ dir, agents, db, script string }

func newFixture(t *testing.T) fixture {
	dir := t.TempDir()
	f := fixture{dir: dir, agents: filepath.Join(dir, "agents"), db: filepath.Join(dir, "trace.db"), script: filepath.Join(dir, "script.yaml")}
	must(t, os.MkdirAll(f.agents, 0o755))
	must(t, os.WriteFile(filepath.Join(f.agents, "coord.md"), []byte("---\nname: coord\ndescription: Coordinates\nsubagents:\n  allow: [leaf]\n---\nYou coordinate.\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(f.agents, "leaf.md"), []byte("---\nname: leaf\ndescription: Answers\n---\nYou answer.\n"), 0o644))
	must(t, os.WriteFile(f.script, []byte("coord:\n  - calls: [{tool: delegate, args: {agent: leaf, task: sub}}]\n  - say: all done\nleaf:\n  - {say: leaf answer, tokens: {input: 10, output: 3}}\n"), 0o644))
	return f
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// run runs agentry in the fixture's folder with env added to a clean
// OTEL-free environment; it returns stdout, stderr and the exit code.
func (f fixture) run(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(agentry(t), args...)
	cmd.Dir = f.dir
	cmd.Env = append(cleanEnv(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// cleanEnv is this process's environment without OTEL_*, TRACEPARENT and
// AGENTRY_*, so a test sets what agentry sees.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OTEL_") && !strings.HasPrefix(kv, "TRACEPARENT=") && !strings.HasPrefix(kv, "AGENTRY_") {
			env = append(env, kv)
		}
	}
	return env
}

// delegate runs coord and returns the stored run.
func (f fixture) delegate(t *testing.T, env ...string) (trace.Document, string) {
	t.Helper()
	out, errOut, code := f.run(t, env, "run", "coord", "count", "the", "apples", "--agents", f.agents, "--db", f.db,
		"--model", "script:"+f.script, "--json")
	if code != 0 {
		t.Fatalf("agentry run exited %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	var res struct {
		RunID string `json:"run_id"`
	}
	must(t, json.Unmarshal([]byte(out), &res))
	return f.export(t, res.RunID), errOut
}

// export is the stored run id, as `traces export` prints it: a delegation
// at least (five spans).
func (f fixture) export(t *testing.T, id string) trace.Document {
	t.Helper()
	doc, errOut, code := f.run(t, nil, "traces", "export", id, "--db", f.db)
	if code != 0 {
		t.Fatalf("traces export exited %d: %s", code, errOut)
	}
	var d trace.Document
	must(t, json.Unmarshal([]byte(doc), &d))
	if len(d.Spans) < 5 {
		t.Fatalf("run %s stored %d spans; a delegation has at least 5", id, len(d.Spans))
	}
	return d
}

// checkSameTree says what differs between the stored run and what the
// collector got: every stored span exactly once, in traceID, under the same
// parent (the root under rootParent).
func checkSameTree(t *testing.T, d trace.Document, spans []got, traceID, rootParent string) {
	t.Helper()
	if len(spans) != len(d.Spans) {
		t.Errorf("collector got %d spans, the store holds %d", len(spans), len(d.Spans))
	}
	seen := map[string]got{}
	for _, s := range spans {
		if _, dup := seen[s.SpanID]; dup {
			t.Errorf("span %s (%s) arrived twice", s.SpanID, s.Name)
		}
		seen[s.SpanID] = s
		if s.TraceID != traceID {
			t.Errorf("%s: trace %s, want %s", s.Name, s.TraceID, traceID)
		}
	}
	for _, sp := range d.Spans {
		g, ok := seen[sp.ID]
		if !ok {
			t.Errorf("stored span %s (%s) never reached the collector", sp.ID, sp.Name)
			continue
		}
		want := sp.ParentID
		if want == "" {
			want = rootParent
		}
		if g.ParentID != want {
			t.Errorf("%s: parent %q, stored parent %q", sp.Name, g.ParentID, want)
		}
	}
}

func TestCLIDelegationRunExportsEachSpanOnceLive(t *testing.T) {
	c := startCollector(t)
	f := newFixture(t)
	const caller = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	d, _ := f.delegate(t, "OTEL_EXPORTER_OTLP_ENDPOINT="+c.httpURL, "TRACEPARENT="+caller)
	if len(d.Spans) < 5 {
		t.Fatalf("the run stored %d spans; a delegation has at least 5", len(d.Spans))
	}
	checkSameTree(t, d, c.spans(t, len(d.Spans)), "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331")
	for _, sp := range d.Spans {
		if sp.ParentID == "" && sp.Attributes["traceparent"] != caller {
			t.Errorf("the stored root keeps no traceparent: %v", sp.Attributes)
		}
	}
	t.Logf("live: %d spans, each once, in the caller's trace", len(d.Spans))

	// Sent again from the store, over gRPC: the same ids, the same tree.
	c.sink.Reset()
	_, errOut, code := f.run(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + c.grpc, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"},
		"traces", "export", d.Run.ID, "--otlp", "--db", f.db)
	if code != 0 {
		t.Fatalf("traces export --otlp exited %d: %s", code, errOut)
	}
	checkSameTree(t, d, c.spans(t, len(d.Spans)), "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331")
}

func TestCLIRunWithTheCollectorDownSucceedsWithOneCountedWarning(t *testing.T) {
	f := newFixture(t)
	down := "http://" + freeAddr(t)
	d, errOut := f.delegate(t, "OTEL_EXPORTER_OTLP_ENDPOINT="+down)
	var warnings []string
	for _, line := range strings.Split(errOut, "\n") {
		if strings.Contains(line, "otel") {
			warnings = append(warnings, line)
		}
	}
	if len(warnings) != 1 {
		t.Fatalf("want exactly one otel warning, got %d:\n%s", len(warnings), errOut)
	}
	if want := "dropped=" + strconv.Itoa(len(d.Spans)); !strings.Contains(warnings[0], want) {
		t.Errorf("warning %q does not count the %d spans (%s)", warnings[0], len(d.Spans), want)
	}
}

// A follow-up run (run --continue RUN_ID TASK, as chat's runs) is exported
// live and joins the caller's trace, as a first run is.
func TestCLIAFollowUpRunIsExportedLiveInTheCallersTrace(t *testing.T) {
	c := startCollector(t)
	f := newFixture(t)
	first, _ := f.delegate(t)
	const caller = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	out, errOut, code := f.run(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + c.httpURL, "TRACEPARENT=" + caller},
		"run", "--continue", first.Run.ID, "and the pears", "--agents", f.agents, "--db", f.db, "--model", "script:"+f.script, "--json")
	if code != 0 {
		t.Fatalf("agentry run --continue exited %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	var res struct {
		RunID string `json:"run_id"`
	}
	must(t, json.Unmarshal([]byte(out), &res))
	d := f.export(t, res.RunID)
	checkSameTree(t, d, c.spans(t, len(d.Spans)), "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7")
}
