package temporal_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/trace/semconv"
)

// spanEvents is a run's span events with times and waits left out: one line
// per event, sorted, naming its span and its attributes.
func spanEvents(t testing.TB, f *fixture, runID string) []string {
	t.Helper()
	spans := f.spans(t, runID)
	var out []string
	for _, sp := range spans {
		for _, ev := range sp.Events {
			var attrs []string
			for k, v := range ev.Attributes {
				if k != semconv.EventAttrWaitedMS && k != semconv.EventAttrWaitMS {
					attrs = append(attrs, fmt.Sprintf("%s=%v", k, v))
				}
			}
			slices.Sort(attrs)
			out = append(out, fmt.Sprintf("%s %q %s: %s %s", sp.Kind, sp.Name, sp.Agent, ev.Name, strings.Join(attrs, " ")))
		}
	}
	slices.Sort(out)
	return out
}

// compareEvents runs req in-process and on Temporal (compareRuns) and
// compares their span events; it returns the Temporal run's.
func compareEvents(t *testing.T, newF func() *fixture, req delegation.Request) []string {
	t.Helper()
	in := newF()
	want, err := in.rt.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	tf, got := compareRuns(t, newF, req)
	ws, gs := spanEvents(t, in, want.RunID), spanEvents(t, tf, got.RunID)
	if strings.Join(ws, "\n") != strings.Join(gs, "\n") {
		t.Errorf("temporal events:\n%s\n\nin-process events:\n%s", strings.Join(gs, "\n"), strings.Join(ws, "\n"))
	}
	return gs
}

// A limit that stops an agent on Temporal puts the in-process limit event
// on its invoke_agent span: max_tool_calls of a dispatched agent.
func TestALimitOnTemporalRecordsTheLimitEvent(t *testing.T) {
	gs := compareEvents(t, func() *fixture { return newFixture(t, orchScript) }, delegation.Request{Agent: "orch", Task: "go"})
	if len(gs) == 0 || !strings.Contains(strings.Join(gs, "\n"), `invoke_agent "invoke_agent reader" reader: limit reason=`) {
		t.Errorf("events:\n%s", strings.Join(gs, "\n"))
	}
}

// A delegation that waits for a run-wide max_concurrent slot on Temporal
// gets the in-process queued and admitted events on its span.
func TestAQueuedDelegationOnTemporalRecordsQueuedAndAdmitted(t *testing.T) {
	const sc = `coord:
  - calls:
      - {tool: delegate, args: {agent: leaf, task: one}}
      - {tool: delegate, args: {agent: leaf, task: two}}
      - {tool: delegate, args: {agent: leaf, task: three}}
  - say: all done
leaf:
  - {say: leaf answer, latency: 300ms}
`
	// The latency keeps the first leaf working until the others have asked
	// for their slots: on Temporal each call's checks are a step of its own.
	newF := func() *fixture {
		return newFixture(t, sc, func(c *delegation.Config) { c.MaxConcurrent = 1 })
	}
	gs := strings.Join(compareEvents(t, newF, delegation.Request{Agent: "coord", Task: "go"}), "\n")
	if strings.Count(gs, `execute_tool "execute_tool delegate" coord: queued cap=run limit=1`) != 2 ||
		strings.Count(gs, `execute_tool "execute_tool delegate" coord: admitted cap=run limit=1`) != 2 {
		t.Errorf("events:\n%s", gs)
	}
}

// A batch call that waits for its agent's subagents.max_concurrent on
// Temporal gets the in-process queued and admitted events (cap
// max_concurrent, the agent named), its span open from when it began to
// wait.
func TestACallOverItsAgentsMaxConcurrentOnTemporalRecordsQueuedAndAdmitted(t *testing.T) {
	const sc = `narrow:
  - calls:
      - {tool: delegate, args: {agent: leaf, task: one}}
      - {tool: delegate, args: {agent: leaf, task: two}}
      - {tool: delegate, args: {agent: leaf, task: three}}
  - say: all done
leaf:
  - say: leaf answer
`
	f := func() *fixture { return newFixture(t, sc) }
	gs := strings.Join(compareEvents(t, f, delegation.Request{Agent: "narrow", Task: "go"}), "\n")
	if strings.Count(gs, `execute_tool "execute_tool delegate" narrow: queued agent=narrow cap=max_concurrent limit=1`) != 2 ||
		strings.Count(gs, `execute_tool "execute_tool delegate" narrow: admitted agent=narrow cap=max_concurrent limit=1`) != 2 {
		t.Errorf("events:\n%s", gs)
	}
	tf := f()
	run := tf.runTemporal(t, delegation.Request{Agent: "narrow", Task: "go"})
	spans, _ := tf.store.Spans(context.Background(), run.RunID)
	for _, sp := range spans {
		for _, ev := range sp.Events {
			if ev.Time.Before(sp.StartedAt) {
				t.Errorf("%s event at %v before its span started (%v)", ev.Name, ev.Time, sp.StartedAt)
			}
		}
	}
}
