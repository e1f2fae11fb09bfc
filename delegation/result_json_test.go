package delegation

import (
	"encoding/json"
	"testing"

	"github.com/agentry/agentry/trace"
)

// The parent's model reads delegate results as encoding/json wrote them
// before text replaced it: the bytes must not change.
func TestDelegateResultTextIsWhatJSONMarshalWrites(t *testing.T) {
	for _, r := range []delegateResult{
		{},
		{Status: trace.StatusOK, Agent: "leaf", Result: "found it", Depth: 1, DurationMS: 42},
		{Status: trace.StatusError, Agent: "a-b.c", Result: "", Depth: 3, DurationMS: -1, Error: "model: 503"},
		{Status: trace.StatusDenied, Agent: "x", Result: "<b>\"quoted\" & tab\t nl\n cr\r</b>", Error: "\x00\x1f bad \xff utf-8"},
		{Status: trace.StatusLimit, Result: "line\u2028sep\u2029 ünïcødé 🚀 \\ back", DurationMS: 1 << 40},
	} {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.text(); got != string(want) {
			t.Errorf("text() = %s\njson.Marshal = %s", got, want)
		}
	}
}
