package delegation

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

// fakeShell is a shell.run that records the commands it ran, what it was
// granted, and sets a span attribute.
type fakeShell struct {
	mu      sync.Mutex
	ran     []string
	network []bool
}

func (f *fakeShell) Spec() model.Tool {
	return model.Tool{Name: "shell.run", Parameters: tool.Schema(map[string]string{"command": `{"type":"string"}`}, "command")}
}

func (f *fakeShell) PatternArgument(args json.RawMessage) (string, error) {
	var a struct{ Command string }
	err := tool.Decode(args, &a)
	return a.Command, err
}

func (f *fakeShell) Call(ctx context.Context, args json.RawMessage) (string, error) {
	cmd, _ := f.PatternArgument(args)
	c := tool.CallFrom(ctx)
	c.SetAttribute("ran", cmd)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ran = append(f.ran, cmd)
	f.network = append(f.network, c.Grants("shell.network"))
	return "ok", nil
}

func TestCommandPatternsDecideEachCall(t *testing.T) {
	sh := &fakeShell{}
	f := setup(t, map[string]string{"coder": "tools:\n  allow: [\"shell.run(git *)\", shell.network]\n  deny: [\"shell.run(git push *)\"]\n"}, `
coder:
  - calls:
      - {tool: shell.run, args: {command: "rm -rf /"}}
      - {tool: shell.run, args: {command: "git status; rm -rf /"}}
      - {tool: shell.run, args: {command: "git push origin main"}}
      - {tool: shell.run, args: {command: "git status && git log"}}
  - say: done
`, func(c *Config) { c.Tools = []tool.Tool{sh} })
	if res := f.run(t, "coder", "go"); res.Status != trace.StatusOK {
		t.Fatalf("run: %+v", res)
	}
	if !slices.Equal(sh.ran, []string{"git status && git log"}) || !slices.Equal(sh.network, []bool{true}) {
		t.Fatalf("ran %q with network %v; want only the all-git command, with the network granted", sh.ran, sh.network)
	}
	spans := f.sink.named("execute_tool shell.run")
	if len(spans) != 4 {
		t.Fatalf("%d shell.run spans, want 4", len(spans))
	}
	for i, want := range []trace.Status{trace.StatusDenied, trace.StatusDenied, trace.StatusDenied, trace.StatusOK} {
		if spans[i].Status != want {
			t.Errorf("call %d: status %s (%s), want %s", i, spans[i].Status, spans[i].Error, want)
		}
	}
	if !strings.Contains(spans[2].Error, `deny pattern "shell.run(git push *)"`) {
		t.Errorf("the denial should quote the deny pattern: %s", spans[2].Error)
	}
	if spans[3].Attributes["ran"] != "git status && git log" || spans[3].Attributes[semconv.AttrToolResult] != "ok" {
		t.Errorf("span attributes = %v; want the tool's own attribute beside the result", spans[3].Attributes)
	}
}
