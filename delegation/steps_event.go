package delegation

import (
	"context"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// Event adds an event to a span the engine holds (an invocation's, a
// delegation's), at the worker's clock as in-process, records it and
// returns the span with it, which the engine keeps so the span's later
// records (Finish, Close) carry it. An engine uses it for what in-process
// records while waiting or stopping: EventLimit on an invoke_agent span,
// semconv.EventQueued and semconv.EventAdmitted on a delegation's. at (zero:
// now) is when it happened; an admitted event gets its waited_ms from the
// span's start, as in-process; a queued event earlier than the span's
// start moves the start back to it, as in-process the span is open while
// it waits.
func (s *Steps) Event(_ context.Context, key Key, sp trace.Span, name string, attrs map[string]any, at time.Time) (trace.Span, error) {
	x := &span{rn: s.run(key, sp.RunID, ""), s: sp}
	if at.IsZero() {
		at = s.rt.cfg.Now()
	}
	if name == semconv.EventQueued && at.Before(sp.StartedAt) { // an engine that opens the span when the wait ends
		x.s.StartedAt = at
	}
	if name == semconv.EventAdmitted {
		attrs[semconv.EventAttrWaitedMS] = at.Sub(sp.StartedAt).Milliseconds()
	}
	x.eventAt(at, name, attrs)
	return x.s, nil
}
