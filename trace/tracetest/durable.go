package tracetest

import (
	"testing"

	"github.com/agentry/agentry/trace"
)

// testDurableRun: a run no process owns (trace.Run.Durable) says so when
// read back, listed, exported and imported, and keeps it across a later
// write, so a reader (serve's Cancel, its reconciler) can tell which runs
// an engine such as Temporal holds.
func testDurableRun(t *testing.T, s trace.Store) {
	durable, owned := run("durable", "a", "task", 0), run("owned", "a", "task", 1)
	durable.Durable = true
	mustApply(t, s, []trace.Run{durable, owned}, nil)
	for _, want := range []trace.Run{durable, owned} {
		got, err := s.Run(ctx(t), want.ID)
		if err != nil {
			t.Fatalf("Run(%s): %v", want.ID, err)
		}
		checkRun(t, got, want)
	}
	page, err := s.Runs(ctx(t), trace.RunFilter{Status: trace.StatusRunning})
	if err != nil || len(page.Runs) != 2 {
		t.Fatalf("Runs = %+v, %v; want both", page.Runs, err)
	}
	checkRun(t, page.Runs[0], owned)
	checkRun(t, page.Runs[1], durable)

	durable.Status, durable.EndedAt, durable.Result = trace.StatusOK, at(50), "done"
	mustApply(t, s, []trace.Run{durable}, nil)
	doc, err := s.Export(ctx(t), "durable")
	if err != nil {
		t.Fatalf("Export: %v", err)
	}
	checkRun(t, doc.Run, durable)
	if err := s.Delete(ctx(t), "durable"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := s.Import(ctx(t), doc); err != nil {
		t.Fatalf("Import: %v", err)
	}
	got, err := s.Run(ctx(t), "durable")
	if err != nil {
		t.Fatalf("Run after import: %v", err)
	}
	checkRun(t, got, durable)
}
