package runs

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

func TestSpanDetailShowsAttributesForReading(t *testing.T) {
	s := sp("d1", "root", trace.KindExecuteTool, "delegate", 0, 250, trace.StatusDenied)
	s.Error = "agent ghost is not allowed"
	s.Attributes = map[string]any{
		semconv.AttrToolArguments: `{"agent":"ghost","task":"x"}`,
		semconv.AttrContextPassed: map[string]any{"messages": []any{map[string]any{"role": "user", "content": "hi"}}, "task": "x"},
		semconv.AttrQueuedMS:      float64(40),
		semconv.AttrRetryAttempt:  float64(2),
		semconv.AttrPermissions: []any{
			map[string]any{"subject": "ghost", "allowed": false, "reason": "not in lead's subagents.allow"},
			"an entry of another shape",
		},
		semconv.AttrEffectiveTools: []any{"web.fetch", "filesystem.read_file"},
		"zeta":                     1.5,
		"alpha":                    "first",
	}
	d := BuildSpanDetail(s)
	tests := []struct {
		name, got, want string
	}{
		{"tool arguments given as a JSON string are indented", d.ToolArgs, "{\n  \"agent\": \"ghost\",\n  \"task\": \"x\"\n}"},
		{"a structured context is shown as JSON", strings.Split(d.Context, "\n")[0], "{"},
		{"the wait is in milliseconds", d.Queued, "40 ms"},
		{"the duration is the span's", d.Duration, "250 ms"},
		{"a decision keeps its reason", d.Decisions[0].Reason, "not in lead's subagents.allow"},
		{"a decision of another shape is kept whole", d.Decisions[1].Raw, "an entry of another shape"},
		{"effective tools keep their order", strings.Join(d.EffectiveTools, ","), "web.fetch,filesystem.read_file"},
		{"other attributes are sorted by key", d.Other[0].Key + "," + d.Other[1].Key, "alpha,zeta"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
	if d.Retry != 2 || d.Decisions[0].Allowed || d.Error == "" {
		t.Errorf("retry=%d allowed=%v error=%q", d.Retry, d.Decisions[0].Allowed, d.Error)
	}
	if !strings.Contains(d.Context, `"content": "hi"`) {
		t.Errorf("the full context lost the messages: %s", d.Context)
	}
}

func TestSpanDetailOfARunningSpanHasNoDuration(t *testing.T) {
	d := BuildSpanDetail(sp("c", "", trace.KindChat, "demo", 0, -1, trace.StatusRunning))
	if d.Duration != "" || d.Ended != "" {
		t.Errorf("running span shows duration %q ended %q", d.Duration, d.Ended)
	}
}

func TestSpanDetailListsEventsWithTheirOffsetFromTheStart(t *testing.T) {
	s := sp("c1", "root", trace.KindChat, "demo", 100, 400, trace.StatusError)
	s.Events = []trace.Event{
		{Time: ms(220), Name: semconv.EventRetry, Attributes: map[string]any{
			semconv.EventAttrWaitMS: float64(1000), semconv.EventAttrAttempt: float64(1), semconv.EventAttrError: "429 slow down"}},
		{Time: ms(400), Name: "done"},
	}
	var b bytes.Buffer
	if err := SpanDetailPanel(BuildSpanDetail(s)).Render(t.Context(), &b); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, n := range findAll(find(doc, "detail-events"), "detail-event") {
		if attr(n, "data-testid") == "detail-event" {
			events = append(events, textOf(n))
		}
	}
	want := []string{
		"+120 ms retry attempt1error429 slow downwait_ms1000",
		"+300 ms done",
	}
	if strings.Join(events, "|") != strings.Join(want, "|") {
		t.Errorf("events read %q, want %q", events, want)
	}
	if d := BuildSpanDetail(sp("x", "", trace.KindChat, "demo", 0, 1, trace.StatusOK)); d.Events != nil {
		t.Errorf("a span without events shows %+v", d.Events)
	}
}
