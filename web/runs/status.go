package runs

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// statusQueued is what the UI shows for a delegation that is waiting for a
// concurrency slot: the store says running, but nothing runs yet. It is a
// view-only status, never stored.
const statusQueued trace.Status = "queued"

// NotOK is the UI's one definition of a failed span or run: a final status
// other than ok (error, timeout, cancelled, denied, skipped, limit,
// interrupted, and any final status added later). Running and queued are not
// final, so they are not counted. Every counter of the runs pages (the
// axis's "not ok", a subtree's ✕, the rollup's column, the runs list) uses
// it, so they always add up.
func NotOK(s trace.Status) bool {
	return s != "" && s != trace.StatusOK && s != trace.StatusRunning && s != statusQueued
}

// StatusTally counts spans per status that is not ok.
type StatusTally map[trace.Status]int

// add counts s when it is not ok.
func (t StatusTally) add(s trace.Status) {
	if NotOK(s) {
		t[s]++
	}
}

// Total is how many spans are not ok.
func (t StatusTally) Total() int {
	n := 0
	for _, c := range t {
		n += c
	}
	return n
}

// String lists the tally, most frequent first: "2 denied, 1 error".
func (t StatusTally) String() string {
	keys := make([]trace.Status, 0, len(t))
	for s := range t {
		keys = append(keys, s)
	}
	sort.Slice(keys, func(i, j int) bool {
		if t[keys[i]] != t[keys[j]] {
			return t[keys[i]] > t[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, s := range keys {
		parts[i] = fmt.Sprintf("%d %s", t[s], s)
	}
	return strings.Join(parts, ", ")
}

// queuedNow reports whether a span is a delegation still waiting for its
// slot: running, with a queued event and no admitted event after it.
func queuedNow(sp trace.Span) bool {
	if sp.Status != trace.StatusRunning || sp.Kind != trace.KindExecuteTool {
		return false
	}
	q := false
	for _, e := range sp.Events {
		switch e.Name {
		case semconv.EventQueued:
			q = true
		case semconv.EventAdmitted:
			q = false
		}
	}
	return q
}
