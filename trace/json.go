package trace

import (
	"encoding/json"
	"fmt"
	"time"
)

// TimeFormat is how every JSON output writes a time: RFC 3339, always with
// microseconds, so consumers can rely on sub-second precision being present.
const TimeFormat = "2006-01-02T15:04:05.000000Z07:00"

// jsonTime writes a zero time as null and any other in TimeFormat, in UTC.
type jsonTime time.Time

func (t jsonTime) MarshalJSON() ([]byte, error) {
	tt := time.Time(t)
	if tt.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + tt.UTC().Format(TimeFormat) + `"`), nil
}

func (t *jsonTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*t = jsonTime{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("time: %w", err)
	}
	if s == "" {
		*t = jsonTime{}
		return nil
	}
	tt, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("time: %w", err)
	}
	*t = jsonTime(tt.UTC())
	return nil
}

// The plain types drop the methods below so json does not recurse; the outer
// fields shadow the embedded ones because they sit at a shallower depth.
type (
	plainRun  Run
	plainSpan Span
)

// eventJSON lists an event's fields in the order they are written.
type eventJSON struct {
	Time       jsonTime       `json:"time"`
	Name       string         `json:"name"`
	Attributes map[string]any `json:"attributes,omitempty"`
}

// MarshalJSON writes the event with its time in TimeFormat.
func (e Event) MarshalJSON() ([]byte, error) {
	return json.Marshal(eventJSON{jsonTime(e.Time), e.Name, e.Attributes})
}

// UnmarshalJSON reads what MarshalJSON writes; any RFC 3339 time is accepted.
func (e *Event) UnmarshalJSON(b []byte) error {
	var v eventJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*e = Event{Time: time.Time(v.Time), Name: v.Name, Attributes: v.Attributes}
	return nil
}

type runJSON struct {
	plainRun
	StartedAt jsonTime `json:"started_at"`
	EndedAt   jsonTime `json:"ended_at"`
}

type spanJSON struct {
	plainSpan
	StartedAt  jsonTime       `json:"started_at"`
	EndedAt    jsonTime       `json:"ended_at"`
	Attributes map[string]any `json:"attributes"`
}

// MarshalJSON writes the run with times in TimeFormat and ended_at null while
// the run has not ended.
func (r Run) MarshalJSON() ([]byte, error) {
	return json.Marshal(runJSON{plainRun(r), jsonTime(r.StartedAt), jsonTime(r.EndedAt)})
}

// UnmarshalJSON reads what MarshalJSON writes; any RFC 3339 time is accepted.
func (r *Run) UnmarshalJSON(b []byte) error {
	var v runJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = Run(v.plainRun)
	r.StartedAt, r.EndedAt = time.Time(v.StartedAt), time.Time(v.EndedAt)
	return nil
}

// MarshalJSON writes the span with times in TimeFormat, ended_at null while
// the span is open, attributes as an object even when there are none, and
// events only when there are some.
func (s Span) MarshalJSON() ([]byte, error) {
	attrs := s.Attributes
	if attrs == nil {
		attrs = map[string]any{}
	}
	return json.Marshal(spanJSON{plainSpan(s), jsonTime(s.StartedAt), jsonTime(s.EndedAt), attrs})
}

// UnmarshalJSON reads what MarshalJSON writes; any RFC 3339 time is accepted.
func (s *Span) UnmarshalJSON(b []byte) error {
	var v spanJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = Span(v.plainSpan)
	s.StartedAt, s.EndedAt = time.Time(v.StartedAt), time.Time(v.EndedAt)
	s.Attributes = v.Attributes
	return nil
}

// EncodeAttributes returns attrs as a JSON object. It never fails: a value
// JSON cannot hold (a NaN, a channel) is written as its fmt %v text, so one
// odd attribute cannot keep a whole batch of spans from being stored.
func EncodeAttributes(attrs map[string]any) []byte {
	if len(attrs) == 0 {
		return []byte("{}")
	}
	if b, err := json.Marshal(attrs); err == nil {
		return b
	}
	safe := make(map[string]any, len(attrs))
	for k, v := range attrs {
		if _, err := json.Marshal(v); err != nil {
			v = fmt.Sprintf("%v", v)
		}
		safe[k] = v
	}
	b, _ := json.Marshal(safe) // every value marshals now
	return b
}
