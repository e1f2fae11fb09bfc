package delegation

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/delegation/orchestrator"
	"github.com/agentry/agentry/delegation/tool"
	"github.com/agentry/agentry/trace"
)

func TestADispatchSkillKeepsItsCommandPattern(t *testing.T) {
	sh := &fakeShell{}
	f := setup(t, map[string]string{"orch": "tools: [shell.run]\nsubagents: {dispatch: true}\n"}, `
orch:
  - calls:
      - {tool: dispatch_agent, args: {agent_id: runner, mission: "run id", skills: ["shell.run(id)"]}}
  - calls: [{tool: get_agent_results}]
  - say: done
runner:
  - calls:
      - {tool: shell.run, args: {command: "id"}}
      - {tool: shell.run, args: {command: "rm -rf x"}}
  - say: ran
`, func(c *Config) { c.Tools = []tool.Tool{sh} })
	if res := f.run(t, "orch", "go"); res.Status != trace.StatusOK {
		t.Fatalf("run: %+v", res)
	}
	if !slices.Equal(sh.ran, []string{"id"}) {
		t.Fatalf("the dispatched agent ran %q; want only id, the command its skill names", sh.ran)
	}
	d := f.sink.one(t, "execute_tool dispatch_agent")
	if skills, _ := d.Attributes[orchestrator.AttrSkills].([]string); !slices.Equal(skills, []string{"shell.run(id)"}) {
		t.Errorf("skills recorded %v; want the pattern kept whole", d.Attributes[orchestrator.AttrSkills])
	}
}

func TestADispatchSkillWithAnArgumentItCannotKeepIsRefused(t *testing.T) {
	for skill, why := range map[string]string{
		"*(id)":         "must name one tool",
		"shell(id)":     "must name one tool",
		"todo.write(x)": "takes no argument",
		"web.fetch(x)":  "web.fetch is not among your tools",
	} {
		t.Run(skill, func(t *testing.T) {
			f := setup(t, map[string]string{"orch": "tools: [shell.run, todo.write]\nsubagents: {dispatch: true}\n"}, `
orch:
  - calls: [{tool: dispatch_agent, args: {agent_id: runner, mission: "m", skills: ["`+skill+`"]}}]
  - say: refused
`, func(c *Config) {
				c.Tools = []tool.Tool{&fakeShell{}, tool.Func{Def: model.Tool{Name: "todo.write"}, Fn: func(context.Context, json.RawMessage) (string, error) { return "ok", nil }}}
			})
			f.run(t, "orch", "go")
			sp := f.sink.one(t, "execute_tool dispatch_agent")
			if sp.Status != trace.StatusDenied || !strings.Contains(sp.Error, why) {
				t.Fatalf("dispatch of %q: %s %q; want denied because it %s", skill, sp.Status, sp.Error, why)
			}
			if len(f.sink.named("invoke_agent runner")) != 0 {
				t.Fatal("a refused dispatch ran its agent")
			}
		})
	}
}
