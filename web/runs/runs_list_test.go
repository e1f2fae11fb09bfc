package runs_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
)

func TestRunsListTagsAWorkflowsRun(t *testing.T) {
	e := newRunsEnv(t)
	e.seed("agent-run", "lead", "plan the launch", trace.StatusOK, 1)
	start := t0.Add(2 * time.Minute)
	r := trace.Run{ID: "wf-run", Agent: "content-pipeline", Task: `{"topic":"heat pumps"}`, Status: trace.StatusOK, StartedAt: start, EndedAt: start.Add(time.Second)}
	root := trace.Span{ID: "root", RunID: "wf-run", Kind: trace.KindInvokeWorkflow, Name: "invoke_workflow content-pipeline",
		Agent: "content-pipeline", Status: trace.StatusOK, StartedAt: start, EndedAt: start.Add(time.Second)}
	if err := e.store.Apply(context.Background(), []trace.Run{r}, []trace.Span{root}); err != nil {
		t.Fatal(err)
	}
	_, doc := e.Get("/runs")
	rows := findAll(doc, "run-row")
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	if tag := find(rows[0], "run-workflow-tag"); tag == nil || textOf(tag) != "workflow" {
		t.Errorf("the workflow's run is not tagged: %s", textOf(rows[0]))
	}
	if find(rows[1], "run-workflow-tag") != nil {
		t.Errorf("an agent's run is tagged as a workflow's: %s", textOf(rows[1]))
	}
}
