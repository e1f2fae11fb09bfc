package delegation

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
	"github.com/agentry/agentry/trace/sqlite"
)

// unversioned serves a snapshot's agents without their Version, as the
// runtime saw them before runs recorded agent_version.
type unversioned struct{ *registry.Snapshot }

func (u unversioned) Agent(name string) (registry.Agent, bool) {
	a, ok := u.Snapshot.Agent(name)
	a.Version = ""
	return a, ok
}

func (u unversioned) Agents() []registry.Agent {
	as := u.Snapshot.Agents()
	for i := range as {
		as[i].Version = ""
	}
	return as
}

// BenchmarkVersionAttribute measures what agent_version costs a run: the
// same run (a coordinator making 20 delegations, one per turn, its trace
// recorded to SQLite through the Recorder, as `agentry run` does) over
// agents with and without their version, alternating, one run each per
// iteration. It reports the median CPU time of a run each way and their
// ratio; CPU rather than wall time, since the machine is shared.
func BenchmarkVersionAttribute(b *testing.B) {
	const n = 20
	agents := seqAgents(n)
	agents["leaf"] = "model: leaf\n"
	fsys := fstest.MapFS{}
	for name, extra := range agents {
		fsys[name+".md"] = &fstest.MapFile{Data: []byte(agentFile(name, extra))}
	}
	snap, err := registry.Load(fsys, registry.Options{})
	if err != nil {
		b.Fatal(err)
	}
	sm, err := script.Parse([]byte(sequentialScript(n)))
	if err != nil {
		b.Fatal(err)
	}
	store, err := sqlite.Open(filepath.Join(b.TempDir(), "trace.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	rec := trace.NewRecorder(store, trace.RecorderConfig{})
	defer rec.Close(context.Background())
	cfg := Config{Agents: registry.New(snap), DefaultModel: "script", Sink: rec, Logger: slog.New(slog.DiscardHandler),
		Models: model.Providers{"script": func(string) (model.LLM, error) { return sm, nil }, "leaf": func(string) (model.LLM, error) { return instant{}, nil }}}
	with, err := newRuntime(cfg, func() agentSet { return snap })
	if err != nil {
		b.Fatal(err)
	}
	without, err := newRuntime(cfg, func() agentSet { return unversioned{snap} })
	if err != nil {
		b.Fatal(err)
	}
	var on, off []time.Duration
	run := func(rt *Runtime) time.Duration {
		start := cpuTime()
		mustOK(b, rt, "coord")
		if err := rec.Flush(context.Background()); err != nil { // the trace is in SQLite: the attribute was written too
			b.Fatal(err)
		}
		return cpuTime() - start
	}
	for _, c := range []struct {
		rt   *Runtime
		want bool
	}{{with, true}, {without, false}} { // warm up, and check that the two differ as they should
		run(c.rt)
		spans, err := store.Spans(context.Background(), mustLastRun(b, store))
		if err != nil || len(spans) == 0 {
			b.Fatal(err)
		}
		if _, has := spans[0].Attributes[semconv.AttrAgentVersion]; has != c.want {
			b.Fatalf("the root span has agent_version: %v, want %v", has, c.want)
		}
	}
	for b.Loop() {
		on = append(on, run(with))
		off = append(off, run(without))
	}
	b.ReportMetric(float64(median(on).Microseconds()), "cpu-µs/run-with-versions")
	b.ReportMetric(float64(median(off).Microseconds()), "cpu-µs/run-without")
	b.ReportMetric(float64(median(on))/float64(median(off)), "ratio")
}

// mustLastRun is the newest run's ID.
func mustLastRun(b *testing.B, s *sqlite.Store) string {
	page, err := s.Runs(context.Background(), trace.RunFilter{Limit: 1})
	if err != nil || len(page.Runs) == 0 {
		b.Fatal(err)
	}
	return page.Runs[0].ID
}
