package temporal_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentry/agentry/trace"
)

// floorParent is Temporal's own floor for one delegation: a workflow that
// runs one activity and one child workflow, which runs one activity.
func floorParent(ctx workflow.Context) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	var out string
	if err := workflow.ExecuteActivity(ctx, floorStep, "parent").Get(ctx, &out); err != nil {
		return "", err
	}
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: workflow.GetInfo(ctx).WorkflowExecution.ID + "-child"})
	err := workflow.ExecuteChildWorkflow(cctx, floorChild).Get(ctx, &out)
	return out, err
}

func floorChild(ctx workflow.Context) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	var out string
	err := workflow.ExecuteActivity(ctx, floorStep, "child").Get(ctx, &out)
	return out, err
}

func floorStep(_ context.Context, who string) (string, error) { return who + " done", nil }

// BenchmarkDelegationAgainstFloor runs, on one real server and alternating,
// Temporal's floor (floorParent) and agentry's run with one delegation, and
// reports the median of each and their ratio.
func BenchmarkDelegationAgainstFloor(b *testing.B) {
	f := newFixture(b, oneDelegation)
	eng := serve(b, f, 1)
	addr := eng.Config().Address
	c, err := client.Dial(client.Options{HostPort: addr, Namespace: "agentry-bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	w := worker.New(c, "floor", worker.Options{})
	w.RegisterWorkflow(floorParent)
	w.RegisterWorkflow(floorChild)
	w.RegisterActivity(floorStep)
	if err := w.Start(); err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	var floor, agentry []time.Duration
	for b.Loop() {
		start := time.Now()
		wr, err := c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: trace.NewRunID(), TaskQueue: "floor"}, floorParent)
		if err != nil {
			b.Fatal(err)
		}
		var out string
		if err := wr.Get(context.Background(), &out); err != nil {
			b.Fatal(err)
		}
		floor = append(floor, time.Since(start))
		start = time.Now()
		x, err := eng.Start(context.Background(), benchReq, 0)
		if err != nil {
			b.Fatal(err)
		}
		if res, err := x.Wait(context.Background()); err != nil || res.Status != trace.StatusOK {
			b.Fatalf("run = %+v, %v", res, err)
		}
		agentry = append(agentry, time.Since(start))
	}
	med := func(ds []time.Duration) time.Duration { s := slices.Clone(ds); slices.Sort(s); return s[len(s)/2] }
	fl, ag := med(floor), med(agentry)
	b.ReportMetric(float64(fl.Microseconds())/1e3, "floor-ms")
	b.ReportMetric(float64(ag.Microseconds())/1e3, "agentry-ms")
	b.ReportMetric(float64(ag)/float64(fl), "ratio")
}
