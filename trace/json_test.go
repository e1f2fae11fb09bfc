package trace_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

func TestSpanJSONShape(t *testing.T) {
	start := time.Date(2026, 11, 3, 14, 5, 9, 120000000, time.FixedZone("CET", 3600))
	cases := []struct {
		name string
		span trace.Span
		want []string // fragments the JSON must contain
	}{
		{"a running span has a null end and microsecond UTC start", trace.Span{ID: "s", Kind: trace.KindChat, StartedAt: start},
			[]string{`"started_at":"2026-11-03T13:05:09.120000Z"`, `"ended_at":null`, `"attributes":{}`, `"kind":"chat"`}},
		{"an ended span has both times", trace.Span{ID: "s", StartedAt: start, EndedAt: start.Add(1500 * time.Microsecond)},
			[]string{`"ended_at":"2026-11-03T13:05:09.121500Z"`}},
		{"attributes and contract fields are written", trace.Span{ID: "s", ParentID: "p", Depth: 2, InputTokens: 3,
			Attributes: map[string]any{semconv.AttrTargetAgent: "analyst"}},
			[]string{`"parent_id":"p"`, `"depth":2`, `"input_tokens":3`, `"output_tokens":0`, `"error":""`, `"attributes":{"target_agent":"analyst"}`}},
		{"events are written with their time in the trace's format", trace.Span{ID: "s", Events: []trace.Event{
			{Time: start.Add(time.Millisecond), Name: semconv.EventRetry, Attributes: map[string]any{semconv.EventAttrWaitMS: 50}}}},
			[]string{`"events":[{"time":"2026-11-03T13:05:09.121000Z","name":"retry","attributes":{"wait_ms":50}}]`}},
	}
	if b, _ := json.Marshal(trace.Span{ID: "s"}); strings.Contains(string(b), "events") {
		t.Errorf("a span without events writes them: %s", b)
	}
	for _, c := range cases {
		b, err := json.Marshal(c.span)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, w := range c.want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s: %s lacks %s", c.name, b, w)
			}
		}
	}
}

func TestDocumentJSONRoundTrip(t *testing.T) {
	start := time.Date(2026, 11, 3, 14, 5, 9, 123456000, time.UTC)
	d := trace.Document{
		Run: trace.Run{ID: "r", Agent: "a", Task: "t", Status: trace.StatusOK, StartedAt: start, EndedAt: start.Add(time.Second), Result: "x"},
		Spans: []trace.Span{{ID: "s", RunID: "r", Kind: trace.KindInvokeAgent, StartedAt: start, Status: trace.StatusRunning,
			Attributes: map[string]any{"n": 1.5}}},
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil || top["run"] == nil || top["spans"] == nil {
		t.Fatalf("document %s lacks run or spans", b)
	}
	var back trace.Document
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !back.Run.StartedAt.Equal(start) || !back.Run.EndedAt.Equal(start.Add(time.Second)) || back.Run.Result != "x" {
		t.Errorf("run came back as %+v", back.Run)
	}
	sp := back.Spans[0]
	if !sp.StartedAt.Equal(start) || !sp.EndedAt.IsZero() || sp.Attributes["n"] != 1.5 || sp.Kind != trace.KindInvokeAgent {
		t.Errorf("span came back as %+v", sp)
	}
}

func TestUnmarshalRejectsBadTimes(t *testing.T) {
	var r trace.Run
	if err := json.Unmarshal([]byte(`{"id":"r","started_at":"yesterday"}`), &r); err == nil {
		t.Error("a malformed time was accepted")
	}
}

func TestEncodeAttributesNeverFails(t *testing.T) {
	b := trace.EncodeAttributes(map[string]any{"ok": 1, "nan": math.NaN(), "ch": make(chan int)})
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not JSON: %s", b)
	}
	if m["ok"] != 1.0 || m["nan"] != "NaN" || m["ch"] == nil {
		t.Errorf("got %v", m)
	}
	if got := string(trace.EncodeAttributes(nil)); got != "{}" {
		t.Errorf("nil attributes encode as %s, want {}", got)
	}
}

func TestIDsHaveOTelShape(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		r, s := trace.NewRunID(), trace.NewSpanID()
		if len(r) != 32 || len(s) != 16 || strings.Trim(r+s, "0123456789abcdef") != "" {
			t.Fatalf("ids %q %q are not 32 and 16 lowercase hex", r, s)
		}
		if seen[r] || seen[s] {
			t.Fatalf("id repeated")
		}
		seen[r], seen[s] = true, true
	}
}

// sinkLog is a hand-written Sink that logs the calls it gets.
type sinkLog struct{ got []string }

func (l *sinkLog) RecordRun(r trace.Run)   { l.got = append(l.got, "run "+r.ID) }
func (l *sinkLog) RecordSpan(s trace.Span) { l.got = append(l.got, "span "+s.ID) }

func TestTeeSendsEveryCallToEverySink(t *testing.T) {
	a, b := &sinkLog{}, &sinkLog{}
	sink := trace.Tee(a, b)
	sink.RecordRun(trace.Run{ID: "r"})
	sink.RecordSpan(trace.Span{ID: "s"})
	for _, l := range []*sinkLog{a, b} {
		if strings.Join(l.got, ",") != "run r,span s" {
			t.Errorf("sink got %v", l.got)
		}
	}
}

// EncodeAttributes writes scalars itself; its output must be what
// encoding/json writes for them, byte for byte.
func TestEncodeAttributesMatchesEncodingJSON(t *testing.T) {
	var every strings.Builder
	for c := range 128 {
		if c != '\b' && c != '\f' { // encoding/json's short forms; \u0008 is as valid
			every.WriteByte(byte(c))
		}
	}
	cases := []map[string]any{
		{"task": "Summarise Q4", "retry_attempt": 0, "queued_ms": int64(201), "ok": true, "none": nil},
		{"every ascii": every.String(), "unicode": "naïve café — 東京 \u2028\u2029", "bad utf-8": "a\xffb\xc3"},
		{"html": `<script>alert("x")</script> & more`, "tab\tkey": "line\nbreak\r"},
		{"float": 12.5, "big": 1e21, "small": 1e-7, "int32": int32(-7), "list": []string{"a", "b"}, "map": map[string]any{"z": 1, "a": "<"}},
		{"z": 1, "a": 2, "m": 3, "b": 4, "y": 5, "c": 6, "x": 7, "d": 8, "w": 9, "e": 10}, // more keys than the stack array
	}
	for _, attrs := range cases {
		want, err := json.Marshal(attrs)
		if err != nil {
			t.Fatal(err)
		}
		if got := trace.EncodeAttributes(attrs); string(got) != string(want) {
			t.Errorf("EncodeAttributes(%v)\n got %s\nwant %s", attrs, got, want)
		}
	}
}

// BenchmarkEncodeAttributes encodes a tool span's attributes, against
// encoding/json on the same map for reference.
func BenchmarkEncodeAttributes(b *testing.B) {
	attrs := map[string]any{semconv.AttrToolName: "filesystem.read_file",
		semconv.AttrToolArguments: `{"path":"notes/q4.md"}`, semconv.AttrToolResult: "Q4 revenue grew 12% on the year."}
	b.Run("EncodeAttributes", func(b *testing.B) {
		for b.Loop() {
			trace.EncodeAttributes(attrs)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			json.Marshal(attrs)
		}
	})
}
