package delegation

import (
	"testing"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace"
	"github.com/agentry/agentry/trace/semconv"
)

func TestEveryInvocationRecordsTheVersionOfTheFileItRanWith(t *testing.T) {
	f := setup(t, map[string]string{"lead": "subagents: [helper]\n", "helper": ""}, `
lead:
  - calls: [{tool: delegate, args: {agent: helper, task: "help"}}]
  - say: done
helper:
  - say: helped
`, nil)
	before, _ := f.reg.Snapshot().Agent("helper")
	f.run(t, "lead", "go")
	edited := agentFile("helper", "") + "Be brief.\n"
	f.reg.Replace(f.reg.Snapshot().Apply(registry.Change{Path: "helper.md", Data: []byte(edited)}))
	f.run(t, "lead", "again")
	var helpers []string
	for _, sp := range f.sink.named("invoke_agent helper") {
		helpers = append(helpers, sp.Attributes[semconv.AttrAgentVersion].(string))
	}
	want := []string{before.Version, registry.Hash([]byte(edited))}
	if len(helpers) != 2 || helpers[0] != want[0] || helpers[1] != want[1] {
		t.Errorf("helper ran at versions %v, want %v", helpers, want)
	}
	lead, _ := f.reg.Snapshot().Agent("lead")
	for _, sp := range f.sink.named("invoke_agent lead") {
		if sp.Attributes[semconv.AttrAgentVersion] != lead.Version || lead.Version != registry.Hash([]byte(agentFile("lead", "subagents: [helper]\n"))) {
			t.Errorf("lead's span says version %v, its file hashes to %s", sp.Attributes[semconv.AttrAgentVersion], lead.Version)
		}
	}
}

func TestARunsAttributesTagItsRootSpanOnly(t *testing.T) {
	f := setup(t, map[string]string{"lead": "subagents: [helper]\n", "helper": ""}, `
lead:
  - calls: [{tool: delegate, args: {agent: helper, task: "help"}}]
  - say: done
helper:
  - say: helped
`, nil)
	res, err := f.rt.Run(t.Context(), Request{Agent: "lead", Task: "go", Attributes: map[string]any{"replay_of": "r1", semconv.AttrTask: "not mine"}})
	if err != nil || res.Status != trace.StatusOK {
		t.Fatal(res, err)
	}
	root := f.sink.one(t, "invoke_agent lead")
	if root.Attributes["replay_of"] != "r1" || root.Attributes[semconv.AttrTask] != "go" {
		t.Errorf("root attributes = %v", root.Attributes)
	}
	if _, ok := f.sink.one(t, "invoke_agent helper").Attributes["replay_of"]; ok {
		t.Error("a sub-agent's span carries the run's tags")
	}
}
