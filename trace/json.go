package trace

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
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

// EncodeAttributes returns attrs as a JSON object, keys sorted as
// encoding/json sorts them. It never fails: a value JSON cannot hold (a NaN,
// a channel) is written as its fmt %v text, so one odd attribute cannot keep
// a whole batch of spans from being stored.
//
// Strings, numbers, booleans and nil, nearly every attribute, are written
// here directly; other values go through encoding/json. Profiling trace
// ingest showed json.Marshal of the whole map (reflection, a sorted key
// slice, an allocation per value) as a large share of the writer's time.
func EncodeAttributes(attrs map[string]any) []byte {
	if len(attrs) == 0 {
		return []byte("{}")
	}
	return AppendAttributes(make([]byte, 0, 64*len(attrs)), attrs)
}

// AppendAttributes appends EncodeAttributes(attrs) to b, for a writer that
// reuses one buffer for many spans.
func AppendAttributes(b []byte, attrs map[string]any) []byte {
	type attr struct {
		k string
		v any
	}
	var small [8]attr
	sorted := small[:0]
	for k, v := range attrs {
		sorted = append(sorted, attr{k, v})
	}
	slices.SortFunc(sorted, func(x, y attr) int { return strings.Compare(x.k, y.k) })
	b = append(b, '{')
	for i, a := range sorted {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, a.k)
		b = append(b, ':')
		b = appendJSONValue(b, a.v)
	}
	return append(b, '}')
}

// appendJSONValue appends v as JSON, or its fmt %v text as a JSON string
// when JSON cannot hold it.
func appendJSONValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return appendJSONString(b, x)
	case bool:
		return strconv.AppendBool(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case int32:
		return strconv.AppendInt(b, int64(x), 10)
	}
	j, err := json.Marshal(v)
	if err != nil {
		return appendJSONString(b, fmt.Sprintf("%v", v))
	}
	return append(b, j...)
}

const hexDigits = "0123456789abcdef"

// jsonPlain tells the ASCII bytes appendJSONString copies as they are: one
// lookup per byte instead of six comparisons, on the hot path of ingest.
var jsonPlain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendJSONString appends s as a JSON string, escaped as encoding/json
// escapes it (HTML-safe, U+2028 and U+2029 escaped, invalid UTF-8 as
// U+FFFD), with a fast path for the plain text most strings are.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonPlain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			switch r {
			case utf8.RuneError:
				b = append(b, `\ufffd`...)
			case '\u2028':
				b = append(b, "\\u2028"...)
			default:
				b = append(b, "\\u2029"...)
			}
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
