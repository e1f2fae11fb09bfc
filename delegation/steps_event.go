package delegation

import (
	"context"
	"time"

	"github.com/agentry/agentry/trace"
)

// Event adds an event to a span the engine holds (an invocation's, a
// delegation's), at the worker's clock as in-process, records it and
// returns the span with it, which the engine keeps so the span's later
// records (Finish, Close) carry it. An engine uses it for what in-process
// records while waiting or stopping: EventLimit on an invoke_agent span,
// trace.EventQueued and trace.EventAdmitted on a delegation's. at (zero:
// now) is when it happened; an admitted event gets its waited_ms from the
// span's start, as in-process.
func (s *Steps) Event(_ context.Context, key Key, sp trace.Span, name string, attrs map[string]any, at time.Time) (trace.Span, error) {
	x := &span{rn: s.run(key, sp.RunID, ""), s: sp}
	if at.IsZero() {
		at = s.rt.cfg.Now()
	}
	if name == trace.EventAdmitted {
		attrs[trace.EventAttrWaitedMS] = at.Sub(sp.StartedAt).Milliseconds()
	}
	x.eventAt(at, name, attrs)
	return x.s, nil
}
