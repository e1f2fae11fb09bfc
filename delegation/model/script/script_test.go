package script

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentry/agentry/delegation/model"
)

const example = `
research-coordinator:
  - calls:
      - {tool: delegate, args: {agent: data-analyst, task: "Q4 sales trends"}}
      - {tool: delegate, args: {agent: web-researcher, task: "Find sources"}}
  - say: "Summary of both"
data-analyst:
  - {latency: 100ms, say: "Q4 up 12%", tokens: {input: 50, output: 8}}
flaky:
  - {error: "overloaded"}
  - {say: ok}
`

func TestScriptPlaysTurnsPerInvocation(t *testing.T) {
	m, err := Parse([]byte(example))
	if err != nil {
		t.Fatal(err)
	}
	var slept time.Duration
	m.Sleep = func(_ context.Context, d time.Duration) error { slept += d; return nil }
	ctx := context.Background()

	r, err := m.Generate(ctx, &model.Request{Agent: "research-coordinator", Invocation: "a"})
	if err != nil || len(r.ToolCalls) != 2 || string(r.ToolCalls[0].Args) != `{"agent":"data-analyst","task":"Q4 sales trends"}` {
		t.Fatalf("first turn = %+v, %v", r, err)
	}
	// A second invocation starts from the first turn again.
	r2, _ := m.Generate(ctx, &model.Request{Agent: "research-coordinator", Invocation: "b"})
	if len(r2.ToolCalls) != 2 {
		t.Fatalf("new invocation did not restart: %+v", r2)
	}
	r, _ = m.Generate(ctx, &model.Request{Agent: "research-coordinator", Invocation: "a"})
	if r.Text != "Summary of both" {
		t.Fatalf("second turn text = %q", r.Text)
	}
	r, _ = m.Generate(ctx, &model.Request{Agent: "data-analyst", Invocation: "c"})
	if r.Text != "Q4 up 12%" || r.InputTokens != 50 || r.OutputTokens != 8 || slept != 100*time.Millisecond {
		t.Fatalf("leaf = %+v slept %v", r, slept)
	}
}

func TestScriptErrorTurnIsTransientAndRetriesPlayTheNextTurn(t *testing.T) {
	m, _ := Parse([]byte(example))
	ctx := context.Background()
	_, err := m.Generate(ctx, &model.Request{Agent: "flaky", Invocation: "x"})
	if _, ok := model.IsTransient(err); !ok {
		t.Fatalf("error turn gave %v, want transient", err)
	}
	r, err := m.Generate(ctx, &model.Request{Agent: "flaky", Invocation: "x"})
	if err != nil || r.Text != "ok" {
		t.Fatalf("retry = %+v, %v", r, err)
	}
}

func TestScriptOutOfTurnsSaysSo(t *testing.T) {
	m, _ := Parse([]byte(example))
	ctx := context.Background()
	m.Generate(ctx, &model.Request{Agent: "research-coordinator", Invocation: "x"})
	m.turns["research-coordinator"] = m.turns["research-coordinator"][:1]
	_, err := m.Generate(ctx, &model.Request{Agent: "research-coordinator", Invocation: "x"})
	if !errors.Is(err, ErrOutOfTurns) {
		t.Fatalf("err = %v, want out of turns", err)
	}
	if _, err := m.Generate(ctx, &model.Request{Agent: "nobody", Invocation: "x"}); !errors.Is(err, ErrOutOfTurns) {
		t.Fatalf("unknown agent err = %v", err)
	}
}

func TestMalformedScriptsAreRejected(t *testing.T) {
	cases := []struct{ name, text string }{
		{"a list at the top is not a map of agents", "- say: hi"},
		{"an unknown turn field is an error", "a:\n  - {sya: hi}"},
		{"a bad latency is an error", "a:\n  - {latency: soon, say: hi}"},
		{"an empty turn is an error", "a:\n  - {}"},
		{"a call without a tool is an error", "a:\n  - calls: [{args: {x: 1}}]"},
		{"broken YAML is an error", "a: [\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Parse([]byte(c.text)); !errors.Is(err, ErrMalformed) {
				t.Fatalf("err = %v, want ErrMalformed", err)
			}
		})
	}
}

// say: "" plays an empty answer (issue 29), which the runtime then treats
// as a failure; a turn with no say at all is still malformed.
func TestAnEmptySayIsAnEmptyAnswer(t *testing.T) {
	m, err := Parse([]byte("quiet:\n  - {say: \"\"}\n"))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	r, err := m.Generate(context.Background(), &model.Request{Agent: "quiet", Invocation: "a"})
	if err != nil || r.Text != "" || len(r.ToolCalls) != 0 {
		t.Fatalf("turn = %+v, %v; want an empty answer", r, err)
	}
}

func TestLoadNamesTheModelAfterItsFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.yaml")
	os.WriteFile(p, []byte(example), 0o644)
	m, err := Load(p)
	if err != nil || m.Name() != "script:"+p {
		t.Fatalf("Load = %v, %v", m, err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "none.yaml")); err == nil {
		t.Fatal("missing file loaded")
	}
}

func TestLatencyStopsWhenTheContextEnds(t *testing.T) {
	m, _ := Parse([]byte("a:\n  - {latency: 1h, say: late}"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Generate(ctx, &model.Request{Agent: "a", Invocation: "x"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}
