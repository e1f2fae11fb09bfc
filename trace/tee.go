package trace

// Tee returns a Sink that passes every call to each of sinks in order, so the
// runtime can write to the store and, say, a live CLI view at once. A nil
// sink is left out, as the runtime reads a nil Sink as "discard". Each sink
// receives the same Attributes map and must treat it as read-only. Errors
// are redacted (Redact) once, before any sink sees them.
func Tee(sinks ...Sink) Sink {
	out := make(tee, 0, len(sinks))
	for _, s := range sinks {
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}

type tee []Sink

func (t tee) RecordRun(r Run) {
	r.Error = Redact(r.Error)
	for _, s := range t {
		s.RecordRun(r)
	}
}

func (t tee) RecordSpan(sp Span) {
	redactSpan(&sp)
	for _, s := range t {
		s.RecordSpan(sp)
	}
}
