package storekit

import (
	"encoding/json"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/agentry/agentry/trace"
)

// storedEvent is how a database store keeps a span event: the time in Unix
// nanoseconds like every other stored time, not the export's text, which
// has microseconds only.
type storedEvent struct {
	Time       int64           `json:"t"`
	Name       string          `json:"name"`
	Attributes json.RawMessage `json:"attributes,omitempty"`
}

// EncodeEvents returns a span's events as the JSON array a database store
// keeps, or nil when there are none (most spans). Like trace.EncodeAttributes it
// never fails.
func EncodeEvents(events []trace.Event) []byte {
	if len(events) == 0 {
		return nil
	}
	out := make([]storedEvent, len(events))
	for i, e := range events {
		out[i] = storedEvent{Time: e.Time.UnixNano(), Name: e.Name}
		if e.Time.IsZero() {
			out[i].Time = 0
		}
		if len(e.Attributes) > 0 {
			out[i].Attributes = trace.EncodeAttributes(e.Attributes)
		}
	}
	b, _ := json.Marshal(out) // every part is valid JSON by construction
	return b
}

// DecodeEvents reads what EncodeEvents writes, times in UTC and attributes
// as JSON decodes them.
func DecodeEvents(raw []byte) ([]trace.Event, error) {
	var stored []storedEvent
	if err := jsonv2.Unmarshal(raw, &stored); err != nil {
		return nil, err
	}
	events := make([]trace.Event, len(stored))
	for i, e := range stored {
		events[i] = trace.Event{Name: e.Name}
		if e.Time != 0 {
			events[i].Time = time.Unix(0, e.Time).UTC()
		}
		if len(e.Attributes) > 0 {
			if err := jsonv2.Unmarshal(e.Attributes, &events[i].Attributes); err != nil {
				return nil, err
			}
		}
	}
	return events, nil
}
