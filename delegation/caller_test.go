package delegation

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

func TestACallersLevelNarrowsEveryChainOfTheRunAndNothingElse(t *testing.T) {
	ok := func(context.Context) (string, error) { return "done", nil }
	f := setup(t, map[string]string{"lead": "subagents:\n  allow: [helper]\n", "helper": ""},
		"lead:\n  - calls: [{tool: test.write}, {tool: delegate, args: {agent: helper, task: h}}]\n  - say: lead done\n"+
			"helper:\n  - calls: [{tool: test.write}]\n  - say: helper done\n",
		func(c *Config) { c.Tools = []tool.Tool{testTool("test.read", ok), testTool("test.write", ok)} })
	expose := permissions.Rules{Allow: []string{"test.read"}}
	for _, tc := range []struct {
		name  string
		tools *permissions.Rules
		want  []string
	}{
		{"without a caller level the global level alone applies", nil, []string{"test.read", "test.write"}},
		{"with one, a tool it does not allow is offered to no agent of the run", &expose, []string{"test.read"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := f.rt.Run(context.Background(), Request{Agent: "lead", Task: "go", Tools: tc.tools,
				Attributes: map[string]any{"caller.protocol": "mcp"}})
			if err != nil || res.Status != trace.StatusOK {
				t.Fatalf("run: %+v %v", res, err)
			}
			var root, helper trace.Span
			for _, sp := range f.sink.all() {
				if sp.RunID == res.RunID && sp.Name == "invoke_agent lead" {
					root = sp
				}
				if sp.RunID == res.RunID && sp.Name == "invoke_agent helper" {
					helper = sp
				}
			}
			for _, sp := range []trace.Span{root, helper} {
				var got []string
				for _, n := range sp.Attributes[semconv.AttrEffectiveTools].([]string) {
					if strings.HasPrefix(n, "test.") {
						got = append(got, n)
					}
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("%s was offered %v, want %v", sp.Name, got, tc.want)
				}
			}
			if root.Attributes["caller.protocol"] != "mcp" || helper.Attributes["caller.protocol"] != nil {
				t.Errorf("the caller's attributes belong on the root span alone: root %v, helper %v",
					root.Attributes["caller.protocol"], helper.Attributes["caller.protocol"])
			}
			if tc.tools == nil {
				return
			}
			for _, sp := range f.sink.all() {
				if sp.RunID == res.RunID && sp.Name == "execute_tool test.write" &&
					(sp.Status != trace.StatusDenied || !strings.Contains(sp.Error, "denied by expose")) {
					t.Errorf("%s by %s: %s %q, want denied by the expose level", sp.Name, sp.Agent, sp.Status, sp.Error)
				}
			}
		})
	}
}
