package tracetest

import (
	"context"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
)

// OpenFunc returns a fresh, empty store for one test; the suite closes it.
type OpenFunc func(t *testing.T) trace.Store

// RunStoreTests runs the conformance suite against the stores open returns.
func RunStoreTests(t *testing.T, open OpenFunc) {
	tests := []testCase[trace.Store]{
		{"a run reads back as applied", testRunRoundTrip},
		{"a later apply replaces a run's state", testRunReplaced},
		{"an unknown run is not found", testRunNotFound},
		{"a durable run reads back durable, listed and exported", testDurableRun},
		{"records without ids are rejected and nothing is written", testApplyInvalid},
		{"spans come back in start order with their attributes and events", testSpansInOrder},
		{"spans starting at the same time keep the order they were first written in", testStartTiesKeepInsertionOrder},
		{"a span may arrive before its run", testSpanBeforeRun},
		{"a later apply replaces a span's state and events", testSpanReplaced},
		{"runs are filtered by agent status time and text", testRunFilters},
		{"run pages follow the cursor to the end", testRunPaging},
		{"runs sort by cost, most expensive first", testRunsByCost},
		{"a malformed cursor is invalid", testBadCursor},
		{"spans since a cursor return only what changed", testSpansSince},
		{"rollups sum each agent's spans", testRollup},
		{"an exported run imports into another store unchanged", testExportImportRoundTrip},
		{"importing a run whose id exists gets new ids", testImportTakenID},
		{"an incoherent document is not imported", testImportInvalid},
		{"a deleted run is gone with its spans", testDelete},
		{"concurrent applies and reads are safe", testConcurrent},
		{"a span written twice in one apply keeps its last state at its first place", testSpanTwiceInOneApply},
		{"a poller following one run misses nothing while two writers write it", testPollerMissesNothingWithTwoWriters},
		{"a store answers Ping while it is open", testPing},
	}
	runCases(t, append(tests, readTests...), func(t *testing.T) trace.Store {
		s := open(t)
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// testCase is one case of a suite over stores of type S.
type testCase[S any] struct {
	name string
	fn   func(t *testing.T, s S)
}

// runCases runs each case as a subtest on a fresh store from open.
func runCases[S any](t *testing.T, cases []testCase[S], open func(t *testing.T) S) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open(t)) })
	}
}

func testPing(t *testing.T, s trace.Store) {
	if err := s.Ping(ctx(t)); err != nil {
		t.Errorf("Ping = %v", err)
	}
}

// base is a fixed instant with microseconds, so precision losses show up.
var base = time.Date(2026, 11, 3, 14, 5, 9, 123456000, time.UTC)

func at(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }

func ctx(t *testing.T) context.Context { return t.Context() }

func mustApply(t *testing.T, s trace.Store, runs []trace.Run, spans []trace.Span) {
	t.Helper()
	if err := s.Apply(ctx(t), runs, spans); err != nil {
		t.Fatalf("Apply: %v", err)
	}
}

func run(id, agent, task string, start int) trace.Run {
	return trace.Run{ID: id, Agent: agent, Task: task, Status: trace.StatusRunning, StartedAt: at(start)}
}

func span(runID, id, parent string, kind trace.Kind, agent string, start, end int) trace.Span {
	sp := trace.Span{
		ID: id, RunID: runID, ParentID: parent, Kind: kind, Name: string(kind) + " " + agent,
		Agent: agent, Status: trace.StatusOK, StartedAt: at(start),
	}
	if end >= 0 {
		sp.EndedAt = at(end)
	} else {
		sp.Status = trace.StatusRunning
	}
	return sp
}
