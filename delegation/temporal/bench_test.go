package temporal_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/orchestrator"
	"github.com/agentry/agentry/delegation/temporal"
	"github.com/agentry/agentry/delegation/temporal/temporaltest"
	"github.com/agentry/agentry/trace"
)

// oneDelegation: coord delegates once to leaf, which answers.
const oneDelegation = `coord:
  - calls: [{tool: delegate, args: {agent: leaf, task: one}}]
  - say: done
leaf:
  - say: leaf answer
`

// threeChildren: coord delegates to three leaves at once (the throughput
// figure's run).
const threeChildren = `coord:
  - calls:
      - {tool: delegate, args: {agent: leaf, task: one}}
      - {tool: delegate, args: {agent: leaf, task: two}}
      - {tool: delegate, args: {agent: leaf, task: three}}
  - say: done
leaf:
  - say: leaf answer
`

var benchReq = delegation.Request{Agent: "coord", Task: "go"}

// BenchmarkDelegationInProcess is the baseline: one run with one delegation
// (the root's two model calls, the child's one), reported per run.
func BenchmarkDelegationInProcess(b *testing.B) {
	f := newFixture(b, oneDelegation)
	b.ResetTimer()
	for b.Loop() {
		if res, err := f.rt.Run(context.Background(), benchReq); err != nil || res.Status != trace.StatusOK {
			b.Fatalf("run = %+v, %v", res, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/run")
}

// BenchmarkDelegationTestEnv is the same run as workflows in the SDK's test
// environment: the cost of the steps, their serialisation and the workflow
// machinery without a server.
func BenchmarkDelegationTestEnv(b *testing.B) {
	f := newFixture(b, oneDelegation)
	b.ResetTimer()
	for b.Loop() {
		if res := f.runTemporal(b, benchReq); res.Status != trace.StatusOK {
			b.Fatalf("run = %+v", res)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/run")
}

// BenchmarkDelegationServer is the same run on a real Temporal server (SQLite
// in memory) with one worker in this process, one run at a time: the
// latency a delegation adds end to end.
func BenchmarkDelegationServer(b *testing.B) {
	f := newFixture(b, oneDelegation)
	eng := serve(b, f, 1)
	b.ResetTimer()
	for b.Loop() {
		x, err := eng.Start(context.Background(), benchReq, 0)
		if err != nil {
			b.Fatal(err)
		}
		if res, err := x.Wait(context.Background()); err != nil || res.Status != trace.StatusOK {
			b.Fatalf("run = %+v, %v", res, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/run")
}

// BenchmarkDelegationServerLedger is BenchmarkDelegationServer with the
// run-wide caps on (max_concurrent, max_agents_per_run, token_budget), so
// the child asks the root's ledger before its model call and reports after:
// what the ledger adds to a delegation on a real server.
func BenchmarkDelegationServerLedger(b *testing.B) {
	f := newFixture(b, oneDelegation, caps(4, 100, 1_000_000))
	eng := serve(b, f, 1)
	b.ResetTimer()
	for b.Loop() {
		x, err := eng.Start(context.Background(), benchReq, 0)
		if err != nil {
			b.Fatal(err)
		}
		if res, err := x.Wait(context.Background()); err != nil || res.Status != trace.StatusOK {
			b.Fatalf("run = %+v, %v", res, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/run")
}

// BenchmarkThroughput1000 starts 1,000 runs at once (a parent with three
// children each) and waits for all: in-process, and on a real server with
// two workers.
func BenchmarkThroughput1000(b *testing.B) {
	const runs = 1000
	b.Run("inprocess", func(b *testing.B) {
		f := newFixture(b, threeChildren)
		for b.Loop() {
			all(b, runs, func() delegation.Result {
				res, _ := f.rt.Run(context.Background(), benchReq)
				return res
			})
		}
		b.ReportMetric(float64(runs*b.N)/b.Elapsed().Seconds(), "runs/s")
	})
	b.Run("temporal-2-workers", func(b *testing.B) {
		f := newFixture(b, threeChildren)
		eng := serve(b, f, 2)
		for b.Loop() {
			all(b, runs, func() delegation.Result {
				x, err := eng.Start(context.Background(), benchReq, 0)
				if err != nil {
					return delegation.Result{Error: err.Error()}
				}
				res, _ := x.Wait(context.Background())
				return res
			})
		}
		b.ReportMetric(float64(runs*b.N)/b.Elapsed().Seconds(), "runs/s")
	})
}

func all(b *testing.B, n int, run func() delegation.Result) {
	var wg sync.WaitGroup
	failed := make(chan delegation.Result, n)
	for range n {
		wg.Go(func() {
			if res := run(); res.Status != trace.StatusOK {
				failed <- res
			}
		})
	}
	wg.Wait()
	close(failed)
	if res, ok := <-failed; ok {
		b.Fatalf("%d of %d runs failed, e.g. %+v", len(failed)+1, n, res)
	}
}

// serve starts a server and n workers in this process on f's runtime.
func serve(b *testing.B, f *fixture, n int) *temporal.Engine {
	addr := temporaltest.Start(b, "agentry-bench")
	cfg := temporal.Config{Address: addr, Namespace: "agentry-bench", TaskQueue: "bench"}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range n {
		eng, err := temporal.Dial(ctx, cfg, nil)
		if err != nil {
			b.Fatal(err)
		}
		ready := make(chan struct{})
		wg.Go(func() {
			defer eng.Close()
			_ = eng.Serve(ctx, &temporal.Activities{Steps: f.rt.Steps(), Flush: f.rec.Flush}, func() { close(ready) })
		})
		<-ready
	}
	eng, err := temporal.Dial(ctx, cfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		eng.Close()
		cancel()
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
		}
	})
	return eng
}

// windowRun: coord delegates once to tooly, which reads a file on three
// turns, so with limits.window_calls each of its turns is under the window.
const windowRun = `coord:
  - calls: [{tool: delegate, args: {agent: tooly, task: read}}]
  - say: done
tooly:
  - calls: [{tool: filesystem.read_file, args: {path: note.txt}}]
  - calls: [{tool: filesystem.read_file, args: {path: note.txt}}]
  - calls: [{tool: filesystem.read_file, args: {path: note.txt}}]
  - say: read thrice
`

// BenchmarkDelegationServerWindow is a delegation whose child makes three
// tool-calling turns under the binary's default limits.window_calls (50 in
// 5 minutes) and no other cap: what the window costs a child on a real
// server.
func BenchmarkDelegationServerWindow(b *testing.B) {
	f := newFixture(b, windowRun, func(c *delegation.Config) { c.Limits = orchestrator.DefaultLimits() })
	eng := serve(b, f, 1)
	b.ResetTimer()
	for b.Loop() {
		x, err := eng.Start(context.Background(), benchReq, 0)
		if err != nil {
			b.Fatal(err)
		}
		if res, err := x.Wait(context.Background()); err != nil || res.Status != trace.StatusOK {
			b.Fatalf("run = %+v, %v", res, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/run")
}
