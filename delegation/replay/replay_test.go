package replay_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/model/script"
	"github.com/agentry/agentry/delegation/replay"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/memory"
	"github.com/agentry/agentry/trace/semconv"
)

// lookup is a tool with a side effect the test counts: each real call
// answers with how many real calls there were, so an answer from the
// recording is told apart from a fresh one.
type lookup struct{ real atomic.Int64 }

func (l *lookup) Spec() model.Tool {
	return model.Tool{Name: "kb.lookup", Description: "look a topic up", Parameters: json.RawMessage(`{"type":"object"}`)}
}

func (l *lookup) Call(ctx context.Context, args json.RawMessage) (string, error) {
	n := l.real.Add(1)
	var a struct{ Topic string }
	json.Unmarshal(args, &a)
	if a.Topic == "broken" {
		return "", errors.New("no such topic")
	}
	return a.Topic + " facts #" + string(rune('0'+n)), nil
}

const agents = "---\nname: lead\ndescription: leads\ntools: [kb]\nsubagents: [helper]\n---\nLead.\n"
const helper = "---\nname: helper\ndescription: helps\ntools: [kb]\n---\nHelp.\n"

// runWith runs lead on a store-backed recorder and returns the run's spans.
func runWith(t *testing.T, store *memory.Store, scriptText string, tools []tool.Tool) (delegation.Result, []trace.Span) {
	t.Helper()
	snap, err := registry.Load(fstest.MapFS{"lead.md": {Data: []byte(agents)}, "helper.md": {Data: []byte(helper)}}, registry.Options{KnownTools: []string{"kb.*"}})
	if err != nil {
		t.Fatal(err)
	}
	sm, err := script.Parse([]byte(scriptText))
	if err != nil {
		t.Fatal(err)
	}
	rec := trace.NewRecorder(store, trace.RecorderConfig{})
	rt, err := delegation.New(delegation.Config{
		Agents: registry.New(snap), Models: model.Providers{"script": func(string) (model.LLM, error) { return sm, nil }},
		DefaultModel: "script", Sink: rec, Tools: tools, Logger: slog.New(slog.DiscardHandler),
		Sleep: func(context.Context, time.Duration) error { return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := rt.Run(t.Context(), delegation.Request{Agent: "lead", Task: "research"})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans, err := store.Spans(t.Context(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	return res, spans
}

// toolSpans are the spans of kb.lookup calls, in start order.
func toolSpans(spans []trace.Span) []trace.Span {
	var out []trace.Span
	for _, sp := range spans {
		if sp.Name == "execute_tool kb.lookup" {
			out = append(out, sp)
		}
	}
	return out
}

const original = `
lead:
  - calls:
      - {tool: kb.lookup, args: {topic: sales, year: 2026}}
      - {tool: kb.lookup, args: {topic: broken}}
  - calls: [{tool: delegate, args: {agent: helper, task: "check"}}]
  - say: done
helper:
  - calls: [{tool: kb.lookup, args: {topic: costs}}]
  - say: checked
`

// edited asks in another key order and spacing, asks for sales twice, and
// asks for something new; its helper is not delegated to.
const edited = `
lead:
  - calls:
      - {tool: kb.lookup, raw_args: '{"year": 2026,   "topic": "sales"}'}
      - {tool: kb.lookup, args: {topic: sales, year: 2026}}
      - {tool: kb.lookup, args: {topic: broken}}
      - {tool: kb.lookup, args: {topic: costs}}
      - {tool: kb.lookup, args: {topic: weather}}
  - say: done again
`

func TestAReplayAnswersRecordedCallsAndRefusesNewOnes(t *testing.T) {
	store := memory.New()
	kb := &lookup{}
	first, spans := runWith(t, store, original, []tool.Tool{kb})
	if kb.real.Load() != 3 {
		t.Fatalf("the original made %d real calls, want 3", kb.real.Load())
	}
	rec := replay.New(first.RunID, spans)
	if rec.Calls() != 3 {
		t.Fatalf("the recording holds %d calls, want 3", rec.Calls())
	}
	_, replayedSpans := runWith(t, store, edited, rec.Tools([]tool.Tool{kb}, false))
	if kb.real.Load() != 3 {
		t.Errorf("the replay ran the tool %d more times, want none", kb.real.Load()-3)
	}
	if rec.Replayed() != 4 || rec.Refused() != 1 || rec.Live() != 0 {
		t.Errorf("replayed %d, refused %d, live %d; want 4, 1, 0", rec.Replayed(), rec.Refused(), rec.Live())
	}
	got := toolSpans(replayedSpans)
	orig := toolSpans(spans)
	want := []struct {
		replay, result string
		status         trace.Status
	}{
		{replay.ReplayRecorded, orig[0].Attributes[semconv.AttrToolResult].(string), trace.StatusOK},
		{replay.ReplayRecorded, orig[0].Attributes[semconv.AttrToolResult].(string), trace.StatusOK}, // the last answer again
		{replay.ReplayRecorded, "error: no such topic", trace.StatusError},                           // a tool's error is an answer too
		{replay.ReplayRecorded, "costs facts #", trace.StatusOK},                                     // the helper's call, asked by lead now
		{replay.ReplayRefused, "error: not in the recording", trace.StatusError},
	}
	if len(got) != len(want) {
		t.Fatalf("%d tool spans in the replay, want %d", len(got), len(want))
	}
	for i, w := range want {
		sp := got[i]
		res := sp.Attributes[semconv.AttrToolResult].(string)
		if sp.Attributes[replay.AttrReplay] != w.replay || !strings.HasPrefix(res, w.result) || sp.Status != w.status {
			t.Errorf("call %d: replay %v, status %s, result %q; want %s, %s, %q…", i, sp.Attributes[replay.AttrReplay], sp.Status, res, w.replay, w.status, w.result)
		}
	}
	if res := got[4].Attributes[semconv.AttrToolResult].(string); !strings.Contains(res, first.RunID) || !strings.Contains(res, "--live-tools") {
		t.Errorf("a refused call says why and what to do: %q", res)
	}
}

func TestALiveReplayRunsWhatTheRecordingLacks(t *testing.T) {
	store := memory.New()
	kb := &lookup{}
	first, spans := runWith(t, store, original, []tool.Tool{kb})
	rec := replay.New(first.RunID, spans)
	_, replayedSpans := runWith(t, store, edited, rec.Tools([]tool.Tool{kb}, true))
	if kb.real.Load() != 4 || rec.Live() != 1 || rec.Replayed() != 4 {
		t.Errorf("real calls %d, live %d, replayed %d; want 4, 1, 4", kb.real.Load(), rec.Live(), rec.Replayed())
	}
	last := toolSpans(replayedSpans)[4]
	if last.Attributes[replay.AttrReplay] != replay.ReplayLive || last.Attributes[semconv.AttrToolResult] != "weather facts #4" {
		t.Errorf("the new call ran for real: %+v", last.Attributes)
	}
}

// argTool reads a pattern argument, as shell.run does.
type argTool struct{ lookup }

func (*argTool) PatternArgument(args json.RawMessage) (string, error) { return string(args), nil }

func TestAWrappedToolKeepsItsPatternArgument(t *testing.T) {
	rec := replay.New("r", nil)
	wrapped := rec.Tools([]tool.Tool{&argTool{}, &lookup{}}, false)
	if _, ok := wrapped[0].(tool.Argumented); !ok {
		t.Error("a tool with pattern arguments lost them when wrapped")
	}
	if _, ok := wrapped[1].(tool.Argumented); ok {
		t.Error("a tool without pattern arguments gained them when wrapped")
	}
}
