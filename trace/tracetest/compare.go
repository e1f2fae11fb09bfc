package tracetest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
)

// diffRun describes how got differs from want, "" when they are the same run.
func diffRun(got, want trace.Run) string {
	var d []string
	if !got.StartedAt.Equal(want.StartedAt) || !got.EndedAt.Equal(want.EndedAt) {
		d = append(d, fmt.Sprintf("times %v..%v, want %v..%v", got.StartedAt, got.EndedAt, want.StartedAt, want.EndedAt))
	}
	got.StartedAt, got.EndedAt, want.StartedAt, want.EndedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if got != want {
		d = append(d, fmt.Sprintf("%+v, want %+v", got, want))
	}
	return strings.Join(d, "; ")
}

// diffSpan describes how got differs from want; nil and empty attributes
// are the same.
func diffSpan(got, want trace.Span) string {
	var d []string
	if !got.StartedAt.Equal(want.StartedAt) || !got.EndedAt.Equal(want.EndedAt) {
		d = append(d, fmt.Sprintf("times %v..%v, want %v..%v", got.StartedAt, got.EndedAt, want.StartedAt, want.EndedAt))
	}
	if len(got.Attributes)+len(want.Attributes) > 0 && !reflect.DeepEqual(got.Attributes, want.Attributes) {
		d = append(d, fmt.Sprintf("attributes %#v, want %#v", got.Attributes, want.Attributes))
	}
	if d1 := diffEvents(got.Events, want.Events); d1 != "" {
		d = append(d, d1)
	}
	got.StartedAt, got.EndedAt, want.StartedAt, want.EndedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	got.Attributes, want.Attributes, got.Events, want.Events = nil, nil, nil, nil
	if !reflect.DeepEqual(got, want) {
		d = append(d, fmt.Sprintf("%+v, want %+v", got, want))
	}
	return strings.Join(d, "; ")
}

// diffEvents describes how got differs from want; nil and empty lists, and
// nil and empty attributes, are the same.
func diffEvents(got, want []trace.Event) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d events %+v, want %d %+v", len(got), got, len(want), want)
	}
	var d []string
	for i := range want {
		g, w := got[i], want[i]
		if !g.Time.Equal(w.Time) || g.Name != w.Name ||
			(len(g.Attributes)+len(w.Attributes) > 0 && !reflect.DeepEqual(g.Attributes, w.Attributes)) {
			d = append(d, fmt.Sprintf("event %d %v %q %#v, want %v %q %#v", i, g.Time, g.Name, g.Attributes, w.Time, w.Name, w.Attributes))
		}
	}
	return strings.Join(d, "; ")
}

func checkRun(t *testing.T, got, want trace.Run) {
	t.Helper()
	if d := diffRun(got, want); d != "" {
		t.Errorf("run %s: %s", want.ID, d)
	}
}

func checkSpans(t *testing.T, got, want []trace.Span) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d spans %v, want %d %v", len(got), spanIDs(got), len(want), spanIDs(want))
	}
	for i := range want {
		if d := diffSpan(got[i], want[i]); d != "" {
			t.Errorf("span %d (%s): %s", i, want[i].ID, d)
		}
	}
}

func spanIDs(spans []trace.Span) []string {
	ids := make([]string, len(spans))
	for i, s := range spans {
		ids[i] = s.ID
	}
	return ids
}

func runIDs(runs []trace.Run) []string {
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.ID
	}
	return ids
}
