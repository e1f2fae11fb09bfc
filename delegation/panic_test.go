package delegation

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// panicky is a model whose every call panics, as a buggy provider might.
type panicky struct{}

func (panicky) Name() string { return "panicky" }
func (panicky) Generate(context.Context, *model.Request) (*model.Response, error) {
	var m map[string]int
	//lint:ignore SA5000 the panic is the point
	m["boom"]++ // a nil map write: a runtime panic, not a polite one
	return nil, nil
}

// boomTool is a tool that panics with a value of its own.
var boomTool = tool.Func{
	Def: model.Tool{Name: "test.boom", Description: "panics", Parameters: json.RawMessage(`{"type":"object"}`)},
	Fn: func(context.Context, json.RawMessage) (string, error) {
		panic("tool exploded on purpose")
	},
}

const panicScript = `
coord:
  - calls:
      - {tool: delegate, args: {agent: toolpanic, task: "use the tool"}}
      - {tool: delegate, args: {agent: modelpanic, task: "think"}}
      - {tool: delegate, args: {agent: calm, task: "answer"}}
  - say: all three came back
toolpanic:
  - calls: [{tool: test.boom, args: {}}]
  - say: the tool failed, carrying on
calm:
  - say: calm answer
`

func panicFixture(t *testing.T) fixture {
	agents := map[string]string{
		"coord":      "subagents:\n  allow: [toolpanic, modelpanic, calm]\n",
		"toolpanic":  "",
		"modelpanic": "model: panicky\n",
		"calm":       "",
	}
	return setup(t, agents, panicScript, func(c *Config) {
		c.Models["panicky"] = func(string) (model.LLM, error) { return panicky{}, nil }
		c.Tools = []tool.Tool{boomTool}
	})
}

func TestAPanickingToolOrModelFailsOnlyItsOwnSpan(t *testing.T) {
	f := panicFixture(t)
	res := f.run(t, "coord", "x")
	if res.Status != trace.StatusOK || res.Result != "all three came back" {
		t.Fatalf("result = %+v, want the run to go on past both panics", res)
	}
	ds := f.sink.delegations()
	if r := toolResult(t, ds["toolpanic"]); r.Status != trace.StatusOK || r.Result != "the tool failed, carrying on" {
		t.Errorf("toolpanic's delegation = %+v, want ok: its model read the panic as a tool error", r)
	}
	if r := toolResult(t, ds["calm"]); r.Status != trace.StatusOK {
		t.Errorf("calm's delegation = %+v, want ok", r)
	}
	r := toolResult(t, ds["modelpanic"])
	if r.Status != trace.StatusError || !strings.Contains(r.Error, "model panicky panicked") || !strings.Contains(r.Error, "nil map") {
		t.Errorf("modelpanic's delegation = %+v, want an error naming the panic", r)
	}

	boom := f.sink.one(t, "execute_tool test.boom")
	checkPanicSpan(t, boom, "tool exploded on purpose", "panic_test.go")
	if out := fmt.Sprint(boom.Attributes[semconv.AttrToolResult]); !strings.Contains(out, "error: tool test.boom panicked: tool exploded on purpose") {
		t.Errorf("tool_result = %q, want the panic as the error the model read", out)
	}
	chat := f.sink.one(t, "chat panicky")
	checkPanicSpan(t, chat, "assignment to entry in nil map", "panicky.Generate")
}

func checkPanicSpan(t *testing.T, sp trace.Span, value, frame string) {
	t.Helper()
	if sp.Status != trace.StatusError || !strings.Contains(sp.Error, value) {
		t.Errorf("%s: status %s, error %q; want error with %q", sp.Name, sp.Status, sp.Error, value)
	}
	if v := fmt.Sprint(sp.Attributes[AttrPanic]); !strings.Contains(v, value) {
		t.Errorf("%s: %s = %q, want %q", sp.Name, AttrPanic, v, value)
	}
	stack := fmt.Sprint(sp.Attributes[AttrPanicStack])
	frames := strings.Split(stack, "\n")
	first := strings.Join(frames[:min(2, len(frames))], " ")
	if !strings.Contains(first, frame) || strings.Contains(stack, "runtime.gopanic") {
		t.Errorf("%s: %s starts %q, want the panicking frame %s first and no runtime frames:\n%s", sp.Name, AttrPanicStack, first, frame, stack)
	}
	if n := strings.Count(stack, "\n\t"); n == 0 || n > panicFrames {
		t.Errorf("%s: %d frames in the stack, want 1..%d", sp.Name, n, panicFrames)
	}
}

// A sink that panics is the runtime's own problem, not a tool's: the run
// still ends, with an error, and Run returns.
func TestARunWhoseSinkPanicsStillEnds(t *testing.T) {
	f := setup(t, map[string]string{"solo": ""}, "solo: [{say: hi}]\n", func(c *Config) {
		c.Sink = &panickingSink{memSink: newSink(), on: trace.KindChat}
	})
	res, err := f.rt.Run(context.Background(), Request{Agent: "solo", Task: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != trace.StatusError || !strings.Contains(res.Error, "panicked: sink down") {
		t.Fatalf("result = %+v, want an error naming the panic", res)
	}
}

type panickingSink struct {
	*memSink
	on trace.Kind
}

func (s *panickingSink) RecordSpan(sp trace.Span) {
	if sp.Kind == s.on {
		panic("sink down")
	}
	s.memSink.RecordSpan(sp)
}
