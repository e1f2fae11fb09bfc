package temporal_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

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
